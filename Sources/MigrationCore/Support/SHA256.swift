import CHash

/// SHA-256, for the report's `sha256` fields and plan hashes (the C implementation in
/// `CHash`; see its header for why it is in C).
public struct SHA256 {
    private var context = preflight_sha256()

    public init() { preflight_sha256_init(&context) }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update(buffer: $0) }
    }

    public mutating func update(buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        preflight_sha256_update(&context, base, buffer.count)
    }

    /// The digest as 64 hex digits. The hasher is spent afterwards.
    public mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        preflight_sha256_final(&context, &digest)
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] })
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}
