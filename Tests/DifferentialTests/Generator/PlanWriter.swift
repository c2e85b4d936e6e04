import Foundation

/// Writes a history as a Preflight plan document (docs/CONTRACT.md §1), keys in a fixed order so
/// that the same history is always the same bytes.
enum PlanWriter {
    static func document(name: String, foreignKeys: Bool, steps: [GeneratedStep]) -> Data {
        let stepValues = steps.enumerated().map { offset, step in stepValue(step, version: offset + 1) }
        var fields: [(String, JSON)] = [("name", .string(name))]
        if foreignKeys { fields.append(("foreign_keys", .string("on"))) }
        fields.append(("steps", .array(stepValues)))
        return Data(JSON.object(fields).text.utf8)
    }

    /// A `sql` step's value in the step's form.
    private static func sqlValue(_ statements: [String], form: GeneratedStep.Form) -> JSON {
        switch form {
        case .array:
            return .array(statements.map(JSON.string))
        case .script(let comment):
            let script = statements.map { $0 + ";" }.joined(separator: "\n")
            return .string(comment.map { "-- \($0)\n" + script } ?? script)
        case .chunks:
            // The first half in one string, the rest one by one.
            let half = max(1, statements.count / 2)
            let first = statements.prefix(half).joined(separator: "; ")
            return .array([.string(first)] + statements.dropFirst(half).map(JSON.string))
        }
    }

    private static func stepValue(_ step: GeneratedStep, version: Int) -> JSON {
        var fields: [(String, JSON)] = [("version", .integer(version)), ("name", .string(step.name))]
        if step.rowLoss { fields.append(("row_loss", .string("allowed"))) }
        switch step.action {
        case .sql(let statements):
            fields.append(("sql", sqlValue(statements, form: step.form)))
        case .rebuild(let rebuild):
            var body: [(String, JSON)] = [
                ("table", .string(rebuild.table)), ("columns", .string(rebuild.columns)), ("select", .string(rebuild.select)),
            ]
            if let filter = rebuild.filter { body.append(("where", .string(filter))) }
            if let options = rebuild.options { body.append(("options", .string(options))) }
            body.append(("batch_rows", .integer(rebuild.batchRows)))
            if let indexes = rebuild.indexes { body.append(("indexes", .array(indexes.map(JSON.string)))) }
            if let triggers = rebuild.triggers { body.append(("triggers", .array(triggers.map(JSON.string)))) }
            fields.append(("rebuild", .object(body)))
        case .backfill(let backfill):
            var body: [(String, JSON)] = [("table", .string(backfill.table)), ("set", .string(backfill.set))]
            if let filter = backfill.filter { body.append(("where", .string(filter))) }
            body.append(("batch_rows", .integer(backfill.batchRows)))
            fields.append(("backfill", .object(body)))
        }
        return .object(fields)
    }

    /// Just enough JSON: objects keep their keys in the order given.
    indirect enum JSON {
        case string(String)
        case integer(Int)
        case array([JSON])
        case object([(String, JSON)])

        var text: String {
            switch self {
            case .string(let value): return Self.quoted(value)
            case .integer(let value): return String(value)
            case .array(let items): return "[" + items.map(\.text).joined(separator: ", ") + "]"
            case .object(let fields):
                return "{" + fields.map { Self.quoted($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
            }
        }

        static func quoted(_ value: String) -> String {
            var result = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                default:
                    if scalar.value < 0x20 {
                        result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                            + String(scalar.value, radix: 16)
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result + "\""
        }
    }
}
