import CNettle

/// SHA-256, for the report's `sha256` fields and plan hashes: nettle's, through `CNettle`
/// (the toolchain on Linux has no CryptoKit and the project takes no outside packages).
public struct SHA256 {
    private var context = sha256_ctx()

    public init() { nettle_sha256_init(&context) }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update(buffer: $0) }
    }

    public mutating func update(buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        nettle_sha256_update(&context, buffer.count, base.assumingMemoryBound(to: UInt8.self))
    }

    /// The digest as 64 hex digits. The hasher is spent afterwards.
    public mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
        nettle_sha256_digest(&context, digest.count, &digest)
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] })
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}
