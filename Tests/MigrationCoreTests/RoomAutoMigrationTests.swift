import Testing

@testable import MigrationCore

/// The SQL written for an `@AutoMigration`, checked against what Room's compiler writes in
/// its own writer tests (androidx room/room-compiler/src/test/test-data/autoMigrationWriter/output
/// and the schemas of AutoMigrationWriterTest), and against SchemaDiffer's rules where the
/// writer tests have no case.
@Suite struct RoomAutoMigrationTests {
    typealias Bundle = RoomSchemaBundle

    static func field(_ name: String, _ affinity: String, notNull: Bool, default value: String? = nil) -> Bundle.Field {
        Bundle.Field(columnName: name, affinity: affinity, notNull: notNull, defaultValue: value)
    }

    static func entity(
        _ table: String, _ body: String, _ fields: [Bundle.Field], key: [String], indices: [Bundle.Index] = [],
        foreignKeys: [Bundle.ForeignKey] = [], fts: JSONValue? = nil
    ) -> Bundle.Entity {
        Bundle.Entity(
            tableName: table, createSQL: "CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (\(body))", fields: fields,
            primaryKey: Bundle.PrimaryKey(columnNames: key, autoGenerate: false), indices: indices, foreignKeys: foreignKeys,
            ftsOptions: fts, contentSyncTriggers: [])
    }

    /// AutoMigrationWriterTest's `fromSchemaBundle`: Song(id, title, length).
    static let song = entity(
        "Song", "`id` INTEGER NOT NULL, `title` TEXT NOT NULL, `length` INTEGER NOT NULL, PRIMARY KEY(`id`)",
        [field("id", "INTEGER", notNull: true, default: "1"), field("title", "TEXT", notNull: true, default: ""), field("length", "INTEGER", notNull: true, default: "1")],
        key: ["id"])

    func sql(_ from: [Bundle.Entity], _ to: [Bundle.Entity], _ spec: RoomAutoMigration.Spec = .init(), views: ([Bundle.View], [Bundle.View]) = ([], []))
        throws -> [String]
    {
        try RoomAutoMigration(from: Bundle(entities: from, views: views.0), to: Bundle(entities: to, views: views.1), spec: spec).statements()
    }

    func songWith(_ extra: Bundle.Field, sql column: String) -> Bundle.Entity {
        var song = Self.song
        song.fields.append(extra)
        song.createSQL = song.createSQL.replacingOccurrences(of: ", PRIMARY KEY", with: ", \(column), PRIMARY KEY")
        return song
    }

    /// ValidAutoMigrationWithDefault: a NOT NULL column with a default.
    @Test func anAddedNotNullColumnKeepsItsDefault() throws {
        let to = songWith(Self.field("artistId", "INTEGER", notNull: true, default: "0"), sql: "`artistId` INTEGER NOT NULL DEFAULT 0")
        #expect(try sql([Self.song], [to]) == ["ALTER TABLE `Song` ADD COLUMN `artistId` INTEGER NOT NULL DEFAULT 0"])
    }

    /// AutoMigrationWithProvidedSpec / ValidAutoMigrationWithoutDefault: a nullable column.
    @Test func anAddedNullableColumnGetsDefaultNull() throws {
        let to = songWith(Self.field("artistId", "INTEGER", notNull: false), sql: "`artistId` INTEGER")
        #expect(try sql([Self.song], [to]) == ["ALTER TABLE `Song` ADD COLUMN `artistId` INTEGER DEFAULT NULL"])
    }

    /// ValidMultiColumnRename: a renamed table with two renamed columns is one `_new_` copy.
    @Test func renamesBecomeOneCopyIntoANewTable() throws {
        let to = Self.entity(
            "SongTable", "`id` INTEGER NOT NULL, `songTitle` TEXT NOT NULL, `songLength` INTEGER NOT NULL, PRIMARY KEY(`id`)",
            [Self.field("id", "INTEGER", notNull: true, default: "1"), Self.field("songTitle", "TEXT", notNull: true, default: ""),
             Self.field("songLength", "INTEGER", notNull: true, default: "1")],
            key: ["id"])
        var spec = RoomAutoMigration.Spec()
        spec.renamedTables = [("Song", "SongTable")]
        spec.renamedColumns = [("Song", "title", "songTitle"), ("Song", "length", "songLength")]
        #expect(try sql([Self.song], [to], spec) == [
            "CREATE TABLE IF NOT EXISTS `_new_SongTable` (`id` INTEGER NOT NULL, `songTitle` TEXT NOT NULL, `songLength` INTEGER NOT NULL, PRIMARY KEY(`id`))",
            "INSERT INTO `_new_SongTable` (`id`,`songTitle`,`songLength`) SELECT `id`,`title`,`length` FROM `Song`",
            "DROP TABLE `Song`",
            "ALTER TABLE `_new_SongTable` RENAME TO `SongTable`",
        ])
    }

    /// A table renamed with nothing else changed is an ALTER TABLE ... RENAME; deleted
    /// tables are dropped first; views are dropped before and created after everything.
    @Test func simpleChangesComeInTheWritersOrder() throws {
        var renamed = Self.song
        renamed.tableName = "Track"
        let album = Self.entity(
            "Album", "`id` INTEGER NOT NULL, PRIMARY KEY(`id`)", [Self.field("id", "INTEGER", notNull: true)], key: ["id"],
            indices: [Bundle.Index(name: "index_Album_id", unique: true, columnNames: ["id"], orders: [], createSQL: "CREATE UNIQUE INDEX IF NOT EXISTS `index_Album_id` ON `${TABLE_NAME}` (`id`)")])
        let old = Self.entity("Old", "`x` TEXT, PRIMARY KEY(`x`)", [Self.field("x", "TEXT", notNull: false)], key: ["x"])
        var spec = RoomAutoMigration.Spec()
        spec.renamedTables = [("Song", "Track")]
        spec.deletedTables = ["Old"]
        let view = Bundle.View(viewName: "Titles", createSQL: "CREATE VIEW `${VIEW_NAME}` AS SELECT title FROM Song")
        let newView = Bundle.View(viewName: "Titles", createSQL: "CREATE VIEW `${VIEW_NAME}` AS SELECT title FROM Track")
        #expect(try sql([Self.song, old], [renamed, album], spec, views: ([view], [newView])) == [
            "DROP VIEW Titles",
            "DROP TABLE `Old`",
            "ALTER TABLE `Song` RENAME TO `Track`",
            "CREATE TABLE IF NOT EXISTS `Album` (`id` INTEGER NOT NULL, PRIMARY KEY(`id`))",
            "CREATE UNIQUE INDEX IF NOT EXISTS `index_Album_id` ON `Album` (`id`)",
            "CREATE VIEW `Titles` AS SELECT title FROM Track",
        ])
    }

    /// A deleted column, a changed index or a new foreign key make the table a complex
    /// change: copied, its indices recreated, and its foreign keys checked.
    @Test func complexChangesCopyTheTableAndCheckForeignKeys() throws {
        let album = Self.entity("Album", "`id` INTEGER NOT NULL, PRIMARY KEY(`id`)", [Self.field("id", "INTEGER", notNull: true)], key: ["id"])
        let to = Self.entity(
            "Song", "`id` INTEGER NOT NULL, `title` TEXT NOT NULL, `albumId` INTEGER, PRIMARY KEY(`id`), FOREIGN KEY(`albumId`) REFERENCES `Album`(`id`) ON UPDATE NO ACTION ON DELETE CASCADE",
            [Self.field("id", "INTEGER", notNull: true, default: "1"), Self.field("title", "TEXT", notNull: true, default: ""), Self.field("albumId", "INTEGER", notNull: false)],
            key: ["id"],
            indices: [Bundle.Index(name: "index_Song_albumId", unique: false, columnNames: ["albumId"], orders: ["ASC"], createSQL: "CREATE INDEX IF NOT EXISTS `index_Song_albumId` ON `${TABLE_NAME}` (`albumId`)")],
            foreignKeys: [Bundle.ForeignKey(table: "Album", onDelete: "CASCADE", onUpdate: "NO ACTION", columns: ["albumId"], referencedColumns: ["id"])])
        var spec = RoomAutoMigration.Spec()
        spec.deletedColumns = [("Song", "length")]
        let statements = try sql([Self.song, album], [to, album], spec)
        #expect(Array(statements.prefix(5)) == [
            to.createNewTable,
            "INSERT INTO `_new_Song` (`id`,`title`) SELECT `id`,`title` FROM `Song`",
            "DROP TABLE `Song`",
            "ALTER TABLE `_new_Song` RENAME TO `Song`",
            "CREATE INDEX IF NOT EXISTS `index_Song_albumId` ON `Song` (`albumId`)",
        ])
        #expect(statements.count == 6 && statements[5].contains("pragma_foreign_key_check('Song')"))
    }

    /// `DBUtil.foreignKeyCheck` as one statement: it fails when a row breaks a foreign key
    /// of the table, and passes once the row has its parent.
    @Test func theForeignKeyCheckFailsOnABrokenReference() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p(id)); INSERT INTO c VALUES (1, 7)")
        #expect(throws: SQLiteError.self) { try db.execute(RoomAutoMigration.foreignKeyCheck("c")) }
        try db.execute("INSERT INTO p VALUES (7)")
        try db.execute(RoomAutoMigration.foreignKeyCheck("c"))
    }

    /// What Room's compiler refuses, refused with its reason.
    @Test func whatTheCompilerRefusesIsRefused() throws {
        var lost = Self.song
        lost.fields.removeLast()
        let gone = #expect(throws: PlanImportError.self) { try sql([Self.song], [lost]) }
        #expect(gone?.message.contains("Song.length") == true && gone?.message.contains("@DeleteColumn") == true)
        let required = songWith(Self.field("artistId", "INTEGER", notNull: true), sql: "`artistId` INTEGER NOT NULL")
        let noDefault = #expect(throws: PlanImportError.self) { try sql([Self.song], [required]) }
        #expect(noDefault?.message.contains("NOT NULL without a default") == true)
        let dropped = #expect(throws: PlanImportError.self) { try sql([Self.song], []) }
        #expect(dropped?.message.contains("@DeleteTable") == true)
    }
}
