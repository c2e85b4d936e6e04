import MigrationCore

/// Checks `Authorization: Bearer <token>` against the configured tokens.
///
/// The comparison takes the same time whatever the presented token is: both sides are
/// hashed to 32 bytes and every configured token is compared in full, so neither the
/// position of the first differing byte nor the token's length leaks through timing.
struct BearerAuthenticator: Sendable {
    private let digests: [[UInt8]]

    init(tokens: [String]) {
        digests = tokens.map { BearerAuthenticator.digest($0) }
    }

    /// True when no tokens are configured: the API is open.
    var isOpen: Bool { digests.isEmpty }

    func allows(authorization: String?) -> Bool {
        if isOpen { return true }
        guard let authorization else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let presented = BearerAuthenticator.digest(String(parts[1]).trimmingCharacters(in: " \t"))
        var matched: UInt8 = 0
        for digest in digests {
            var difference: UInt8 = 0
            for index in 0..<32 { difference |= digest[index] ^ presented[index] }
            matched |= difference == 0 ? 1 : 0
        }
        return matched == 1
    }

    private static func digest(_ token: String) -> [UInt8] {
        var hash = SHA256()
        hash.update(Array(token.utf8))
        let hex = Array(hash.finalizeHex().utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            bytes[index] = nibble(hex[2 * index]) << 4 | nibble(hex[2 * index + 1])
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8 {
        character >= 0x61 ? character - 0x61 + 10 : (character >= 0x41 ? character - 0x41 + 10 : character - 0x30)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
