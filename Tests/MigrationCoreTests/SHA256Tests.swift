import MigrationCore
import Testing

/// The hasher behind every `sha256` in a report, against FIPS 180-2's test vectors.
@Suite("SHA-256")
struct SHA256Tests {
    @Test func theStandardVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// A million "a" fed in pieces that straddle the 64-byte blocks: the state carries
    /// over between updates.
    @Test func piecesHashAsTheWhole() {
        var hasher = SHA256()
        var fed = 0
        for size in [1, 63, 64, 65, 1000, 4095].cycled(until: 1_000_000) {
            hasher.update([UInt8](repeating: UInt8(ascii: "a"), count: size))
            fed += size
        }
        #expect(fed == 1_000_000)
        #expect(hasher.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

extension Array where Element == Int {
    /// These sizes over and over, the last one cut so that they add up to `total`.
    fileprivate func cycled(until total: Int) -> [Int] {
        var sizes: [Int] = []
        var sum = 0
        while sum < total {
            let size = Swift.min(self[sizes.count % count], total - sum)
            sizes.append(size)
            sum += size
        }
        return sizes
    }
}
