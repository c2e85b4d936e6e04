/// Where one statement is measured: the connection whose catalog gives table shapes,
/// and the common table expressions that stand for the tables the step has changed.
struct Catalog {
    let shapes: Connection
    /// `name(columns) AS (rows), ...`, without the WITH keyword; nil when none.
    let relations: String?

    /// A WITH clause holding the relations and the user's own `with` (a statement's
    /// "WITH [RECURSIVE] ..." prefix), or nil when there are neither.
    func with(_ user: String?) -> String? {
        guard let relations else { return user }
        guard let user else { return "WITH " + relations }
        let clauses = SQLClauses(user)
        let recursive = clauses.tokens.count > 1 && clauses.tokens[1].keyword == "RECURSIVE"
        let body = clauses.source(from: recursive ? 2 : 1)
        return "WITH \(recursive ? "RECURSIVE " : "")\(relations), \(body)"
    }

    /// `with(user)` followed by one more common table expression.
    func with(_ user: String?, adding cte: String) -> String {
        with(user).map { $0 + ", " + cte } ?? "WITH " + cte
    }
}
