//! `pod-template-hash` (k/k `pkg/controller/controller_utils.go`
//! `ComputeHash`): FNV-32a over the pod template, plus the collision count as 8 little-endian
//! bytes, printed in decimal and passed through `rand.SafeEncodeString`.
//!
//! Difference from Kubernetes: upstream hashes a `spew` dump of the Go struct (`DeepHashObject`),
//! which no JSON form reproduces, so the same template hashes to a different (but equally shaped
//! and equally stable) value here. We hash a canonical JSON form: keys sorted at every level.

use serde_json::Value;

use crate::engine::rand::ALPHANUMS;

/// FNV-1a, 32 bits.
fn fnv32a(bytes: &[u8], mut h: u32) -> u32 {
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(16_777_619);
    }
    h
}

const FNV32_OFFSET: u32 = 2_166_136_261;

/// Writes `v` as JSON with every object's keys sorted, so the hash ignores field order.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                canonical(&m[*k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `rand.SafeEncodeString`: each character `c` becomes `alphanums[c % 27]`, so decimal digits map
/// to `0→4 1→5 2→6 3→7 4→8 5→9 6→b 7→c 8→d 9→f`.
pub fn safe_encode_string(s: &str) -> String {
    s.bytes().map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char).collect()
}

/// `controller.ComputeHash(template, collisionCount)`.
pub fn compute_hash(template: &Value, collision_count: Option<i64>) -> String {
    let mut s = String::new();
    canonical(template, &mut s);
    let mut h = fnv32a(s.as_bytes(), FNV32_OFFSET);
    if let Some(c) = collision_count {
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&(c as u32).to_le_bytes());
        h = fnv32a(&bytes, h);
    }
    safe_encode_string(&h.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fnv_matches_reference_values() {
        // Published FNV-1a 32-bit test vectors.
        assert_eq!(fnv32a(b"", FNV32_OFFSET), 0x811c_9dc5);
        assert_eq!(fnv32a(b"a", FNV32_OFFSET), 0xe40c_292c);
        assert_eq!(fnv32a(b"foobar", FNV32_OFFSET), 0xbf9c_f968);
    }

    #[test]
    fn safe_encoding_uses_ten_characters() {
        assert_eq!(safe_encode_string("0123456789"), "456789bcdf");
    }

    #[test]
    fn hash_is_stable_and_order_independent() {
        let a =
            json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "n", "image": "nginx"}]}});
        let b =
            json!({"spec": {"containers": [{"image": "nginx", "name": "n"}]}, "metadata": {"labels": {"app": "web"}}});
        let h = compute_hash(&a, None);
        assert_eq!(h, compute_hash(&b, None));
        assert!(!h.is_empty() && h.len() <= 10 && h.bytes().all(|c| b"456789bcdf".contains(&c)), "{h}");
        assert_ne!(h, compute_hash(&a, Some(1)));
        let c = json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "n", "image": "nginx:2"}]}});
        assert_ne!(h, compute_hash(&c, None));
    }
}
