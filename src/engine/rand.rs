//! The world's one seeded random source. Same seed, same uids and generated names, always.
//!
//! SplitMix64: tiny, fast, and good enough for identifiers (this is not for security).

/// Kubernetes' alphabet for generated name suffixes: no vowels (so no words) and no
/// look-alike characters (apimachinery `pkg/util/rand` `alphanums`).
pub const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// A deterministic pseudo-random generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator whose whole output is fixed by `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed ^ 0x5DEE_CE66_D1CE_4E5B }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// `n` characters from [`ALPHANUMS`], as `utilrand.String(n)` makes them.
    pub fn alphanums(&mut self, n: usize) -> String {
        (0..n).map(|_| ALPHANUMS[self.below(ALPHANUMS.len() as u64) as usize] as char).collect()
    }

    /// A version-4 UUID in its canonical text form, as `uuid.New()` makes uids.
    pub fn uuid_v4(&mut self) -> String {
        let a = self.next_u64();
        let b = self.next_u64();
        let hi = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000;
        let lo = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
        // `{:08x}-{:04x}-{:04x}-{:04x}-{:012x}` of (hi >> 32, hi >> 16, hi, lo >> 48, lo), written
        // nibble by nibble (every object created takes a uid; `format!` was most of its cost).
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(36);
        for (v, digits) in [(hi >> 32, 8), ((hi >> 16) & 0xFFFF, 4), (hi & 0xFFFF, 4), (lo >> 48, 4), (lo, 12)] {
            if !out.is_empty() {
                out.push('-');
            }
            for i in (0..digits).rev() {
                out.push(char::from(HEX[((v >> (4 * i)) & 0xF) as usize]));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_values() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        assert_eq!(a.uuid_v4(), b.uuid_v4());
        assert_eq!(a.alphanums(5), b.alphanums(5));
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn uuid_shape() {
        let u = Rng::new(42).uuid_v4();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn uuid_is_the_formatted_one() {
        for seed in 0..50 {
            let mut r = Rng::new(seed);
            let mut again = Rng::new(seed);
            let (a, b) = (again.next_u64(), again.next_u64());
            let hi = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000;
            let lo = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
            let want = format!(
                "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                hi >> 32,
                (hi >> 16) & 0xFFFF,
                hi & 0xFFFF,
                lo >> 48,
                lo & 0xFFFF_FFFF_FFFF
            );
            assert_eq!(r.uuid_v4(), want);
        }
    }

    #[test]
    fn suffix_alphabet() {
        let s = Rng::new(3).alphanums(200);
        assert!(s.bytes().all(|c| ALPHANUMS.contains(&c)));
    }
}
