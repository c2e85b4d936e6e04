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
        isOpen || tokenNumber(authorization: authorization) != nil
    }

    /// Which configured token (its place in the list, from 1) the header presents; nil for
    /// none, and always when the API is open. Names a client without naming its secret.
    func tokenNumber(authorization: String?) -> Int? {
        guard !isOpen, let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let presented = BearerAuthenticator.digest(String(parts[1]).trimmingCharacters(in: " \t"))
        var matched = 0
        for (index, digest) in digests.enumerated() {
            var difference: UInt8 = 0
            for byte in 0..<32 { difference |= digest[byte] ^ presented[byte] }
            // Every token compared in full, whichever matches.
            if difference == 0, matched == 0 { matched = index + 1 }
        }
        return matched == 0 ? nil : matched
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
