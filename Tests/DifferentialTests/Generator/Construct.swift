/// The kinds of SQL the generator can emit. Each history records the ones it used, so
/// that a test can check that some seed range covers every kind.
enum Construct: String, CaseIterable, Sendable, Comparable {
    // Table definitions (version 1, CREATE TABLE later, rebuilds).
    case integerPrimaryKey, autoincrement, textPrimaryKey, compositePrimaryKey, withoutRowid, strict
    case uniqueColumn, uniqueOnConflictReplace, uniqueOnConflictIgnore, notNullDefault, check, tableCheck
    case collateNocase, referencesCascade, referencesSetNull, generatedVirtual, generatedStored
    case primaryKeyCollation, columnNamedRowid, nonTextKey, extremeIntegerKey
    case identifierWithSpace, keywordIdentifier, nonASCIIIdentifier, identifierWithQuote, identifierWithLikeWildcard
    // Schema changes in `sql` steps.
    case addColumn, renameColumn, renameTable, dropColumn, createTableLater, dropTable, manualRebuild
    case viewRecreatedAroundChange
    case plainIndex, uniqueIndex, partialIndex, expressionIndex, dropIndex
    case trigger, triggerReadingTable, dropTrigger, view, joinView, dropView, fts5, indexOnGeneratedColumn
    case legacyAlterTable
    // Data in `sql` steps.
    case insertRows, upsertRows, updateRows, deleteRows, manualCascade, manualSetNull, ftsInsert, ftsDelete, createAndFill
    // How the plan is written.
    case sqlScript, sqlChunks, sqlComment, foreignKeysOn
    // Preflight's own steps.
    case rebuild, rebuildExplicitIndexes, rebuildExplicitTriggers, rebuildKeptIndexes, rebuildKeptTriggers
    case rebuildFilter, rebuildCollapse, rebuildToWithoutRowid, rebuildFromWithoutRowid, rebuildToStrict
    case rebuildFromStrict, rebuildDropColumn, rebuildAddColumn, rebuildRenameColumn, rebuildNotNull
    case rebuildAutoincrement, tableNameInOtherCase, rebuildWithView, rebuildReorder, rebuildCorrelatedSelect
    case rebuildReadByTrigger
    case backfill
    // Values in the seed rows.
    case seedNull, seedUnicode, seedEmptyString, seedBlob, seedBigInteger, seedNegativeInteger, seedReal
    case seedDuplicates, seedLargeValue, infiniteReal

    static func < (lhs: Construct, rhs: Construct) -> Bool { lhs.rawValue < rhs.rawValue }
}
