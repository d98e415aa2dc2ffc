//! [`Frozen`]: a compact, immutable JSON tree, the in-memory form of every object an informer
//! cache, a watch event or a handler notification holds (`object::Shared` is `Arc<Frozen>`).
//!
//! Why not `serde_json::Value`: with `preserve_order` a defaulted, running pod (about 170 map
//! entries) takes about 17 KB in wasm32 and 24 KB natively: a `Value` is 48 bytes, every map entry
//! an IndexMap bucket of 64 bytes plus a hash-table slot, and every key its own `String`. Here an
//! object is one shared slice (`Arc<[_]>`) of `(key, value)` pairs in the API server's order
//! (looked up by a linear scan: Kubernetes objects are small maps), every key is an interned
//! `Arc<str>` shared by every object that has it (field names and label keys repeat in every pod),
//! numbers are inline, and a node is 16 bytes in wasm32 (24 natively). Objects, arrays and long
//! strings are shared, so a clone is a reference count, and a new version of an object keeps the
//! nodes its write did not change ([`Frozen::from_like`]).
//!
//! The read API mirrors `serde_json::Value` (`get`, `[]` with a static null for missing entries,
//! `as_str`, `as_i64`, `as_array`, `as_object`, `pointer`, …) so that code reading a cached object
//! reads the same either way (`object::ObjectExt` reads metadata from either form; its map type
//! here is [`Obj`]). Code that modifies an object takes a
//! [`Frozen::to_value`] copy first, as client-go controllers `DeepCopy()` a cached object before
//! they change it.
//!
//! A tree is decoded straight from the store's JSON text ([`Frozen::decode`], a serde visitor:
//! no intermediate `Value`), or converted from a `Value` ([`From<&Value>`]); it serializes to the
//! same compact JSON text as the `Value` it came from (key order kept).

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// An interned map key.
pub type Key = Arc<str>;

/// One JSON value, immutable. See the module documentation.
#[derive(Clone, Default)]
pub enum Frozen {
    /// `null`.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A non-negative integer.
    PosInt(u64),
    /// A negative integer.
    NegInt(i64),
    /// Any other number (finite).
    Float(f64),
    /// A string of more than [`SHORT`] bytes.
    Str(Arc<str>),
    /// A string of at most [`SHORT`] bytes, kept in the node itself (no allocation): most of an
    /// object's strings are short (`True`, `Running`, `nginx`, resourceVersions, node names).
    Short(Short),
    /// An array (shared: a clone is a reference, see [`Frozen::from_like`]).
    Array(Arc<[Frozen]>),
    /// An object, keys in order.
    Object(Obj),
}

/// The longest string a node keeps inline: the node is 16 bytes in wasm32 either way.
pub const SHORT: usize = 14;

/// A string of at most [`SHORT`] bytes, inline. Invariant: `bytes[..len]` is UTF-8.
#[derive(Clone, Copy)]
pub struct Short {
    len: u8,
    bytes: [u8; SHORT],
}

impl Short {
    fn as_str(&self) -> &str {
        let text = std::str::from_utf8(&self.bytes[..usize::from(self.len)]);
        debug_assert!(text.is_ok(), "a Short holds a str's bytes");
        text.unwrap_or_default()
    }
}

// The point of the layout: a node is 16 bytes in the browser (a tag, then 8 bytes of number, or
// a shared slice's pointer and length, or a short string's length and bytes).
#[cfg(target_pointer_width = "32")]
const _: () = assert!(std::mem::size_of::<Frozen>() == 16);

/// A string node: inline when short, else shared (`Arc<str>`).
fn text(s: &str) -> Frozen {
    if s.len() > SHORT {
        return Frozen::Str(s.into());
    }
    let mut bytes = [0; SHORT];
    bytes[..s.len()].copy_from_slice(s.as_bytes());
    Frozen::Short(Short { len: s.len() as u8, bytes })
}

/// A JSON object: its entries in order, keys interned.
#[derive(Clone, Default)]
pub struct Obj(Arc<[(Key, Frozen)]>);

static NULL: Frozen = Frozen::Null;

/// Slots of the direct-mapped cache in front of the interned keys (a power of two).
const RECENT: usize = 512;

/// The interned keys: sorted (a binary search finds one; a new key is inserted in place, which
/// is rare: the vocabulary settles after the first objects), and a direct-mapped cache of them
/// by a hash of their bytes, which answers almost every look-up with one comparison (every key
/// of every object written goes through here: the binary search's string comparisons were
/// about 3% of converging a Deployment).
#[derive(Default)]
struct Keys {
    sorted: Vec<Key>,
    recent: Vec<Option<Key>>,
}

thread_local! {
    static KEYS: RefCell<Keys> = RefCell::new(Keys::default());
}

/// FNV-1a of the key's bytes, reduced to a slot of the cache.
fn slot(key: &str) -> usize {
    let h = key.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    h as usize & (RECENT - 1)
}

/// The shared copy of a map key (one allocation per distinct key for the life of the thread:
/// keys are field names and label and annotation keys, a bounded vocabulary).
pub fn intern(key: &str) -> Key {
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        let keys = &mut *keys;
        if keys.recent.is_empty() {
            keys.recent = vec![None; RECENT];
        }
        let at = slot(key);
        if let Some(k) = keys.recent[at].as_ref().filter(|k| ***k == *key) {
            return Arc::clone(k);
        }
        let k = match keys.sorted.binary_search_by(|k| (**k).cmp(key)) {
            Ok(i) => Arc::clone(&keys.sorted[i]),
            Err(i) => {
                let k: Key = Arc::from(key);
                keys.sorted.insert(i, Arc::clone(&k));
                k
            }
        };
        keys.recent[at] = Some(Arc::clone(&k));
        k
    })
}

impl Obj {
    /// One entry's value.
    pub fn get(&self, key: &str) -> Option<&Frozen> {
        // Length and first byte before the bytes: most keys of a scan differ there, and the full
        // comparison was a call for every key of every look-up (about 7% of converging).
        let first = key.as_bytes().first();
        self.0
            .iter()
            .find(|(k, _)| k.len() == key.len() && k.as_bytes().first() == first && &**k == key)
            .map(|(_, v)| v)
    }
    /// The entries, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Frozen)> + '_ {
        self.0.iter().map(|(k, v)| (&**k, v))
    }
    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.0.iter().map(|(k, _)| &**k)
    }
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The entries with their shared keys (for tests of interning).
    pub fn entries(&self) -> &[(Key, Frozen)] {
        &self.0
    }
    /// A `serde_json` copy.
    pub fn to_map(&self) -> Map<String, Value> {
        // `String::from(&str)`, not `to_string()`: an `Arc<str>`'s `to_string` goes through
        // `Display` and the formatter (a fifth of copying a pod, which every write does).
        let mut map = Map::with_capacity(self.0.len());
        for (k, v) in self.0.iter() {
            map.insert(String::from(&**k), v.to_value());
        }
        map
    }
}

impl Frozen {
    /// Decodes JSON text (the store's encoding). Invalid text is an error, never a panic.
    pub fn decode(text: &str) -> Result<Frozen, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// A string node (what `From<&Value>` makes of `Value::String`).
    pub fn string(s: &str) -> Frozen {
        text(s)
    }

    /// An object node with these entries, in this order (keys interned): for building an
    /// object in its final form directly, without a `Value` first.
    pub fn object<'k>(entries: impl IntoIterator<Item = (&'k str, Frozen)>) -> Frozen {
        Frozen::Object(Obj(entries.into_iter().map(|(k, v)| (intern(k), v)).collect()))
    }

    /// A copy of this object with the entry `key` holding `value` (the other entries shared),
    /// or `None` if this is not an object with that entry.
    pub fn with_entry(&self, key: &str, value: Frozen) -> Option<Frozen> {
        let entries = self.as_object()?;
        let at = entries.0.iter().position(|(k, _)| &**k == key)?;
        let mut copy = entries.0.to_vec();
        copy[at].1 = value;
        Some(Frozen::Object(Obj(copy.into())))
    }

    /// An object node of these entries, in this order (keys already interned).
    pub fn from_entries(entries: Vec<(Key, Frozen)>) -> Frozen {
        Frozen::Object(Obj(entries.into()))
    }

    /// `Frozen::from(v)`, sharing what `like` (an earlier version of the same object) already
    /// holds: an entry or element at the same place that is the same as `v`'s
    /// ([`Frozen::same_as`]) is `like`'s own node (a reference, not a copy), and a key at the
    /// same place is `like`'s key, not looked up among the interned ones. An update of a pod
    /// changes a few of its 170 entries: its spec, most of its metadata and its status's
    /// unchanged parts stay the nodes of the version before, so a write allocates only along
    /// what changed, and keeping both versions (watch history, informer caches) costs little
    /// more than one.
    pub fn from_like(v: &Value, like: &Frozen) -> Frozen {
        let shared = |x: &Value, old: &Frozen| if old.same_as(x) { old.clone() } else { Frozen::from_like(x, old) };
        match (v, like) {
            (Value::Object(m), Frozen::Object(o)) => Frozen::Object(Obj(m
                .iter()
                .enumerate()
                .map(|(i, (k, x))| match o.0.get(i) {
                    Some((ok, ov)) if **ok == **k => (Arc::clone(ok), shared(x, ov)),
                    _ => (intern(k), Frozen::from(x)),
                })
                .collect())),
            (Value::Array(a), Frozen::Array(b)) => Frozen::Array(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| match b.get(i) {
                        Some(y) => shared(x, y),
                        None => Frozen::from(x),
                    })
                    .collect(),
            ),
            _ => Frozen::from(v),
        }
    }

    /// A copy of this object with `metadata.resourceVersion` set to `rv` in place, or `None` if
    /// it has none (a stored object always has one). What a DELETED event carries: the last
    /// state stamped with the deletion's revision, made without a `Value` in between.
    pub fn with_resource_version(&self, rv: u64) -> Option<Frozen> {
        let meta = self.get("metadata")?.with_entry("resourceVersion", text(&rv.to_string()))?;
        self.with_entry("metadata", meta)
    }

    /// A `serde_json::Value` copy, to modify (client-go's `DeepCopy`).
    pub fn to_value(&self) -> Value {
        match self {
            Frozen::Null => Value::Null,
            Frozen::Bool(b) => Value::Bool(*b),
            Frozen::PosInt(n) => Value::from(*n),
            Frozen::NegInt(n) => Value::from(*n),
            Frozen::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Frozen::Str(_) | Frozen::Short(_) => Value::String(String::from(self.as_str().unwrap_or_default())),
            Frozen::Array(a) => Value::Array(a.iter().map(Frozen::to_value).collect()),
            Frozen::Object(o) => Value::Object(o.to_map()),
        }
    }

    /// An object's entry (`None` for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Frozen> {
        self.as_object().and_then(|o| o.get(key))
    }
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Frozen::Str(s) => Some(s),
            Frozen::Short(s) => Some(s.as_str()),
            _ => None,
        }
    }
    /// The integer, if this is one that fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Frozen::PosInt(n) => i64::try_from(*n).ok(),
            Frozen::NegInt(n) => Some(*n),
            _ => None,
        }
    }
    /// The integer, if this is a non-negative one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Frozen::PosInt(n) => Some(*n),
            _ => None,
        }
    }
    /// Any number, as a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Frozen::PosInt(n) => Some(*n as f64),
            Frozen::NegInt(n) => Some(*n as f64),
            Frozen::Float(f) => Some(*f),
            _ => None,
        }
    }
    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Frozen::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Frozen]> {
        match self {
            Frozen::Array(a) => Some(a),
            _ => None,
        }
    }
    /// The entries, if this is an object.
    pub fn as_object(&self) -> Option<&Obj> {
        match self {
            Frozen::Object(o) => Some(o),
            _ => None,
        }
    }
    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Frozen::Null)
    }
    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Frozen::Object(_))
    }
    /// Whether this is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Frozen::Str(_) | Frozen::Short(_))
    }

    /// A JSON Pointer look-up (RFC 6901), as `serde_json::Value::pointer`.
    pub fn pointer(&self, pointer: &str) -> Option<&Frozen> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut at = self;
        for token in rest.split('/') {
            // Unescaping allocates, so only a token that has an escape pays for it (the pointers
            // helpers read on every pod, `/status/conditions`, have none).
            let token: std::borrow::Cow<str> =
                if token.contains('~') { token.replace("~1", "/").replace("~0", "~").into() } else { token.into() };
            at = match at {
                Frozen::Object(o) => o.get(&token)?,
                Frozen::Array(a) => {
                    if (token.len() > 1 && token.starts_with('0')) || token.starts_with('+') {
                        return None;
                    }
                    a.get(token.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(at)
    }
}

/// The reads that helpers need from either form of a JSON value (`serde_json::Value`, which
/// writers build, or [`Frozen`], which caches share), so that one helper serves both.
pub trait Json: Sized {
    /// A JSON Pointer look-up.
    fn at(&self, pointer: &str) -> Option<&Self>;
    /// An object's entry.
    fn field(&self, key: &str) -> Option<&Self>;
    /// The string, if this is one.
    fn text(&self) -> Option<&str>;
    /// The integer, if this is one that fits an `i64`.
    fn int(&self) -> Option<i64>;
    /// The elements, if this is an array.
    fn items(&self) -> Option<&[Self]>;
    /// An object's entries, in order (empty for a non-object).
    fn pairs(&self) -> Vec<(&str, &Self)>;
    /// The number of entries or elements of an object or array.
    fn count(&self) -> Option<usize>;
    /// A `serde_json::Value` copy (a clone, or [`Frozen::to_value`]).
    fn owned(&self) -> Value;
}

impl Json for Frozen {
    fn at(&self, pointer: &str) -> Option<&Frozen> {
        self.pointer(pointer)
    }
    fn field(&self, key: &str) -> Option<&Frozen> {
        self.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn int(&self) -> Option<i64> {
        self.as_i64()
    }
    fn items(&self) -> Option<&[Frozen]> {
        self.as_array()
    }
    fn pairs(&self) -> Vec<(&str, &Frozen)> {
        self.as_object().map(|o| o.iter().collect()).unwrap_or_default()
    }
    fn count(&self) -> Option<usize> {
        self.as_object().map(Obj::len).or(self.as_array().map(<[Frozen]>::len))
    }
    fn owned(&self) -> Value {
        self.to_value()
    }
}

impl Json for Value {
    fn at(&self, pointer: &str) -> Option<&Value> {
        self.pointer(pointer)
    }
    fn field(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn int(&self) -> Option<i64> {
        self.as_i64()
    }
    fn items(&self) -> Option<&[Value]> {
        self.as_array().map(Vec::as_slice)
    }
    fn pairs(&self) -> Vec<(&str, &Value)> {
        self.as_object().map(|o| o.iter().map(|(k, v)| (k.as_str(), v)).collect()).unwrap_or_default()
    }
    fn count(&self) -> Option<usize> {
        self.as_object().map(Map::len).or(self.as_array().map(Vec::len))
    }
    fn owned(&self) -> Value {
        self.clone()
    }
}

impl std::ops::Index<&str> for Frozen {
    type Output = Frozen;
    fn index(&self, key: &str) -> &Frozen {
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::ops::Index<usize> for Frozen {
    type Output = Frozen;
    fn index(&self, i: usize) -> &Frozen {
        self.as_array().and_then(|a| a.get(i)).unwrap_or(&NULL)
    }
}

impl From<&Value> for Frozen {
    fn from(v: &Value) -> Frozen {
        match v {
            Value::Null => Frozen::Null,
            Value::Bool(b) => Frozen::Bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => Frozen::PosInt(u),
                (None, Some(i)) => Frozen::NegInt(i),
                _ => Frozen::Float(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => text(s),
            Value::Array(a) => Frozen::Array(a.iter().map(Frozen::from).collect()),
            Value::Object(o) => Frozen::Object(Obj(o.iter().map(|(k, v)| (intern(k), Frozen::from(v))).collect())),
        }
    }
}

impl From<Value> for Frozen {
    fn from(v: Value) -> Frozen {
        Frozen::from(&v)
    }
}

impl PartialEq for Frozen {
    fn eq(&self, other: &Frozen) -> bool {
        match (self, other) {
            (Frozen::Null, Frozen::Null) => true,
            (Frozen::Bool(a), Frozen::Bool(b)) => a == b,
            (Frozen::PosInt(a), Frozen::PosInt(b)) => a == b,
            (Frozen::NegInt(a), Frozen::NegInt(b)) => a == b,
            (Frozen::Float(a), Frozen::Float(b)) => a == b,
            (Frozen::Str(_) | Frozen::Short(_), Frozen::Str(_) | Frozen::Short(_)) => self.as_str() == other.as_str(),
            // One shared node is equal to itself without a look inside.
            (Frozen::Array(a), Frozen::Array(b)) => Arc::ptr_eq(a, b) || a == b,
            (Frozen::Object(a), Frozen::Object(b)) => Arc::ptr_eq(&a.0, &b.0) || a == b,
            _ => false,
        }
    }
}

/// Like `serde_json::Map`'s equality: the same entries, in any order.
impl PartialEq for Obj {
    fn eq(&self, other: &Obj) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

/// Equal to the `Value` it was made from (numbers by kind, as `Value`'s own equality; object
/// entries in any order), without building either side again.
impl PartialEq<Value> for Frozen {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Frozen::Null, Value::Null) => true,
            (Frozen::Bool(a), Value::Bool(b)) => a == b,
            (Frozen::Str(_) | Frozen::Short(_), Value::String(b)) => self.as_str() == Some(b.as_str()),
            (Frozen::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y),
            // Entries in any order, like `Map`'s equality; both sides are usually in the API
            // server's order, so entries are paired in order and a key is looked up (hashed)
            // only where the orders differ.
            (Frozen::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter().zip(b).all(
                        |((k, v), (bk, w))| {
                            if k == bk {
                                v == w
                            } else {
                                b.get(k).is_some_and(|w| v == w)
                            }
                        },
                    )
            }
            (Frozen::PosInt(a), Value::Number(n)) => n.as_u64() == Some(*a),
            (Frozen::NegInt(a), Value::Number(n)) => n.is_i64() && n.as_i64() == Some(*a),
            (Frozen::Float(a), Value::Number(n)) => n.is_f64() && n.as_f64() == Some(*a),
            _ => false,
        }
    }
}

impl Frozen {
    /// Whether [`Frozen::to_value`] would give exactly `v`: equal, with object keys in the same
    /// order and numbers of the same representation (`==` ignores key order). A writer can then
    /// keep `v` instead of copying this tree over it, and the result is the same value, encoded
    /// the same.
    pub fn same_as(&self, v: &Value) -> bool {
        match (self, v) {
            (Frozen::Null, Value::Null) => true,
            (Frozen::Bool(a), Value::Bool(b)) => a == b,
            (Frozen::Str(_) | Frozen::Short(_), Value::String(b)) => self.as_str() == Some(b.as_str()),
            (Frozen::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y)),
            (Frozen::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|((k, x), (l, y))| k == l && x.same_as(y))
            }
            (Frozen::PosInt(a), Value::Number(n)) => n.is_u64() && n.as_u64() == Some(*a),
            (Frozen::NegInt(a), Value::Number(n)) => !n.is_u64() && n.is_i64() && n.as_i64() == Some(*a),
            (Frozen::Float(a), Value::Number(n)) => n.is_f64() && n.as_f64().map(f64::to_bits) == Some(a.to_bits()),
            _ => false,
        }
    }
}

impl Serialize for Frozen {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Frozen::Null => s.serialize_unit(),
            Frozen::Bool(b) => s.serialize_bool(*b),
            Frozen::PosInt(n) => s.serialize_u64(*n),
            Frozen::NegInt(n) => s.serialize_i64(*n),
            Frozen::Float(f) => s.serialize_f64(*f),
            Frozen::Str(_) | Frozen::Short(_) => s.serialize_str(self.as_str().unwrap_or_default()),
            Frozen::Array(a) => s.collect_seq(a.iter()),
            Frozen::Object(o) => s.collect_map(o.0.iter().map(|(k, v)| (&**k, v))),
        }
    }
}

impl Frozen {
    /// The compact JSON text, byte for byte what `serde_json::to_string` writes for the same
    /// value (keys in order, strings escaped as serde_json escapes them), written directly: the
    /// store encodes every object written, and going through serde's generic serializer cost
    /// about half of a store write.
    pub fn to_json(&self) -> String {
        self.to_json_sized(0)
    }

    /// [`Frozen::to_json`] into a buffer of `capacity` bytes to start with (the length of the
    /// previous version of the object, say: growing the buffer as it fills cost as much as the
    /// writing).
    pub fn to_json_sized(&self, capacity: usize) -> String {
        // Bytes, not a `String`: pushing one byte is cheaper than pushing a `char`, and short
        // strings are copied from their inline bytes without checking them again (every write
        // encodes its object: this was a tenth of converging a Deployment).
        let mut out = Vec::with_capacity(capacity);
        self.write_json(&mut out);
        let text = String::from_utf8(out);
        debug_assert!(text.is_ok(), "the writer copies whole UTF-8 strings and ASCII");
        text.unwrap_or_default()
    }

    /// The length in bytes of [`Frozen::to_json`]'s text, without writing it (the store keeps
    /// the total size of its objects' encodings, and makes an encoding only when one is read).
    pub fn json_len(&self) -> usize {
        match self {
            Frozen::Null => 4,
            Frozen::Bool(b) => 5 - usize::from(*b),
            Frozen::PosInt(n) => int_len(*n),
            Frozen::NegInt(n) => int_len(n.unsigned_abs()) + usize::from(*n < 0),
            Frozen::Float(f) => serde_json::to_string(f).map_or(4, |t| t.len()),
            Frozen::Str(s) => str_len(s.as_bytes()),
            Frozen::Short(s) => str_len(&s.bytes[..usize::from(s.len)]),
            Frozen::Array(a) => 1 + a.len().max(1) + a.iter().map(Frozen::json_len).sum::<usize>(),
            Frozen::Object(o) => {
                1 + o.0.len().max(1) + o.0.iter().map(|(k, v)| str_len(k.as_bytes()) + 1 + v.json_len()).sum::<usize>()
            }
        }
    }

    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Frozen::Null => out.extend_from_slice(b"null"),
            Frozen::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Frozen::PosInt(n) => push_int(out, *n, false),
            Frozen::NegInt(n) => push_int(out, n.unsigned_abs(), *n < 0),
            Frozen::Float(f) => out.extend_from_slice(serde_json::to_string(f).as_deref().unwrap_or("null").as_bytes()),
            Frozen::Str(s) => push_str(out, s.as_bytes()),
            Frozen::Short(s) => push_str(out, &s.bytes[..usize::from(s.len)]),
            Frozen::Array(a) => {
                out.push(b'[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    v.write_json(out);
                }
                out.push(b']');
            }
            Frozen::Object(o) => {
                out.push(b'{');
                for (i, (k, v)) in o.0.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    push_str(out, k.as_bytes());
                    out.push(b':');
                    v.write_json(out);
                }
                out.push(b'}');
            }
        }
    }
}

/// An integer in decimal.
fn push_int(out: &mut Vec<u8>, mut n: u64, negative: bool) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// Whether serde_json escapes this byte in a string.
fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether any byte of `s` is one serde_json escapes, eight bytes at a time (a byte below
/// 0x20, or equal to `"` or `\`, found by the usual word tricks: `x - 0x01…` borrows into the
/// top bit of a byte only where that byte is below 0x01, and bytes of 0x80 and more are never
/// reported).
fn needs_escape(s: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const TOPS: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & TOPS != 0;
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let x = u64::from_le_bytes(b);
        if below(x, 0x20) || below(x ^ (ONES * u64::from(b'"')), 1) || below(x ^ (ONES * u64::from(b'\\')), 1) {
            return true;
        }
    }
    words.remainder().iter().any(|b| escaped(*b))
}

/// The length of a JSON string as [`push_str`] writes it.
fn str_len(s: &[u8]) -> usize {
    if !needs_escape(s) {
        return s.len() + 2;
    }
    let extra = |b: u8| match b {
        b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
        0..=0x1f => 5,
        _ => 0,
    };
    s.len() + 2 + s.iter().map(|b| extra(*b)).sum::<usize>()
}

/// The number of decimal digits of `n`.
fn int_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

/// A JSON string (the bytes of a `str`) as serde_json writes it: `"` and `\` escaped, control
/// characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`, everything else (non-ASCII
/// included) as is. Almost no string has anything to escape: those are copied whole.
fn push_str(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    if !needs_escape(s) {
        out.extend_from_slice(s);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&s[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
    out.push(b'"');
}

/// Compact JSON, as `Value`'s `Display`.
impl fmt::Display for Frozen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Frozen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Debug for Obj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'de> Deserialize<'de> for Frozen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Frozen, D::Error> {
        d.deserialize_any(Tree)
    }
}

/// The one decode path: a visitor building the tree as the parser reads.
struct Tree;

impl<'de> Visitor<'de> for Tree {
    type Value = Frozen;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E>(self) -> Result<Frozen, E> {
        Ok(Frozen::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Frozen, E> {
        Ok(Frozen::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Frozen, E> {
        Ok(Frozen::PosInt(n))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Frozen, E> {
        Ok(u64::try_from(n).map_or(Frozen::NegInt(n), Frozen::PosInt))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Frozen, E> {
        Ok(Frozen::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Frozen, E> {
        Ok(text(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Frozen, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Frozen::Array(items.into()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Frozen, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = map.next_key_seed(KeySeed)? {
            entries.push((k, map.next_value()?));
        }
        Ok(Frozen::Object(Obj(entries.into())))
    }
}

/// Reads a map key straight into the interner.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, s: &str) -> Result<Key, E> {
        Ok(intern(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn to_json_writes_what_serde_json_writes() {
        let odd = "q\"b\\s/\u{0}\u{1f}\u{7f}\u{8}\u{c}\n\r\t é ✓ 😀";
        let values = [
            pod(),
            json!({"s": odd, odd: [odd, 0, -1, 1.5, -2.25e-10, 1e300, 18446744073709551615u64,
                -9223372036854775808i64, true, false, null, {}, []], "": {"": ""}}),
            json!([]),
            json!("plain"),
            json!(0.1),
            json!(-0.0),
        ];
        for v in values {
            let f = Frozen::from(&v);
            assert_eq!(f.to_json(), serde_json::to_string(&v).unwrap(), "{v}");
            let back: Value = serde_json::from_str(&f.to_json()).unwrap();
            assert_eq!(back, v);
        }
    }

    fn pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "web-1", "namespace": "default", "uid": "u1", "resourceVersion": "42", "generation": 3,
            "labels": {"app": "web", "pod-template-hash": "abc"}, "annotations": {"a/b": "c"},
            "finalizers": ["x/y", 7, "z"], "deletionTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-rs",
                "controller": true, "blockOwnerDeletion": true}, {"broken": 1},
                {"apiVersion": "v1", "kind": "A", "name": "a", "uid": "ua", "controller": null, "extra": 1},
                {"apiVersion": "v1", "kind": "B", "name": "b", "uid": "ub", "controller": "yes"},
                {"apiVersion": "v1", "kind": "C", "name": "c", "uid": 7}, "not an object"]},
            "spec": {"zeta": 1, "alpha": -2, "f": 1.5, "g": 2.0, "big": u64::MAX, "t": true, "n": null,
                "containers": [{"name": "c", "image": "nginx"}], "empty": {}, "none": []},
            "status": {"phase": "Running", "weird": "tab\t\"quote\" ü"}})
    }

    #[test]
    fn decodes_and_round_trips_to_the_same_text() {
        let v = pod();
        let text = serde_json::to_string(&v).unwrap();
        let f = Frozen::decode(&text).unwrap();
        assert_eq!(serde_json::to_string(&f).unwrap(), text);
        assert_eq!(f.to_string(), text);
        assert_eq!(f.to_value(), v);
        assert_eq!(serde_json::to_string(&f.to_value()).unwrap(), text);
        assert_eq!(Frozen::from(&v), f);
        assert!(f == v);
        let (one, list, ab) = (
            Frozen::from(json!({"a": 1})),
            Frozen::from(json!({"a": [1, -2, 2.5]})),
            Frozen::from(json!({"a": "x", "b": true})),
        );
        assert!(one != json!({"a": 1.0}) && one != json!({"a": 1, "b": null}) && one == json!({"a": 1}));
        assert!(list == json!({"a": [1, -2, 2.5]}) && list != json!({"a": [1, -2]}));
        assert!(ab == json!({"b": true, "a": "x"}));
        assert!(Frozen::decode("{\"a\":").is_err());
        assert!(Frozen::decode("[1, 2").is_err());
    }

    #[test]
    fn short_strings_stay_inline_and_read_the_same() {
        let exactly = "x".repeat(SHORT);
        let longer = "y".repeat(SHORT + 1);
        let v = json!({"a": "", "b": "True", "c": exactly, "d": longer, "e": "üñï", "f": "ü".repeat(7), "g": "ü".repeat(8)});
        let f = Frozen::decode(&v.to_string()).unwrap();
        assert!(matches!(f["a"], Frozen::Short(_)) && matches!(f["c"], Frozen::Short(_)));
        assert!(matches!(f["d"], Frozen::Str(_)) && matches!(f["g"], Frozen::Str(_)));
        assert!(matches!(f["f"], Frozen::Short(_)), "14 bytes of two-byte characters");
        for k in ["a", "b", "c", "d", "e", "f", "g"] {
            assert_eq!(f[k].as_str(), v[k].as_str(), "{k}");
            assert!(f[k].is_string());
        }
        assert_eq!(f, Frozen::from(&v));
        assert!(f == v);
        assert_eq!(f.to_value(), v);
        assert_eq!(f.to_string(), v.to_string());
        assert_ne!(f["b"], f["a"]);
        #[cfg(target_pointer_width = "32")]
        assert_eq!(std::mem::size_of::<Frozen>(), 16);
        assert!(std::mem::size_of::<Frozen>() <= 24);
    }

    #[test]
    fn keeps_key_order() {
        let f = Frozen::decode(r#"{"z":1,"a":2,"m":{"y":1,"b":2}}"#).unwrap();
        let keys: Vec<&str> = f.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m"]);
        assert_eq!(f["m"].as_object().unwrap().keys().collect::<Vec<_>>(), ["y", "b"]);
        assert_eq!(serde_json::to_string(&f).unwrap(), r#"{"z":1,"a":2,"m":{"y":1,"b":2}}"#);
    }

    #[test]
    fn looks_up_like_value() {
        let v = pod();
        let f = Frozen::from(&v);
        assert_eq!(f["spec"]["zeta"].as_i64(), v["spec"]["zeta"].as_i64());
        assert_eq!(f["spec"]["alpha"].as_i64(), Some(-2));
        assert_eq!(f["spec"]["alpha"].as_u64(), None);
        assert_eq!(f["spec"]["f"].as_f64(), Some(1.5));
        assert_eq!(f["spec"]["f"].as_i64(), None);
        assert_eq!(f["spec"]["g"].to_value(), json!(2.0));
        assert_eq!(f["spec"]["big"].as_u64(), Some(u64::MAX));
        assert_eq!(f["spec"]["big"].as_i64(), None);
        assert_eq!(f["spec"]["t"].as_bool(), Some(true));
        assert!(f["spec"]["n"].is_null() && f["spec"].get("n").is_some());
        assert!(f["nope"]["deeper"][3].is_null() && f.get("nope").is_none());
        assert_eq!(f["spec"]["containers"][0]["image"].as_str(), Some("nginx"));
        assert_eq!(f["spec"]["containers"].as_array().map(<[Frozen]>::len), Some(1));
        assert_eq!(f.pointer("/spec/containers/0/name").and_then(Frozen::as_str), Some("c"));
        assert_eq!(f.pointer("/metadata/annotations/a~1b").and_then(Frozen::as_str), Some("c"));
        assert_eq!(f.pointer(""), Some(&f));
        assert!(f.pointer("/spec/containers/01").is_none() && f.pointer("spec").is_none());
        assert_eq!(f["status"]["weird"].as_str(), v["status"]["weird"].as_str());
        assert!(f["spec"]["empty"].as_object().is_some_and(Obj::is_empty));
        assert!(f["spec"]["none"].as_array().is_some_and(<[Frozen]>::is_empty));
        for p in ["/spec/zeta", "/spec/f", "/metadata/labels", "/spec/containers/0", "/spec/t", "/spec/n"] {
            assert_eq!(f.pointer(p).map(Frozen::to_value).as_ref(), v.pointer(p), "{p}");
        }
    }

    #[test]
    fn interning_shares_keys() {
        let a = Frozen::decode(r#"{"metadata":{"name":"a"}}"#).unwrap();
        let b = Frozen::from(json!({"metadata": {"name": "b"}}));
        let key = |f: &Frozen| Arc::clone(&f["metadata"].as_object().unwrap().entries()[0].0);
        assert!(Arc::ptr_eq(&key(&a), &key(&b)));
        assert!(Arc::ptr_eq(&a.as_object().unwrap().entries()[0].0, &intern("metadata")));
    }

    #[test]
    fn the_encoding_length_is_the_length_of_the_encoding() {
        // Every byte serde_json escapes, at each place in an eight-byte word, among ASCII and
        // multi-byte characters (whose bytes are 0x80 and more).
        let mut strings = vec![String::new(), "plain ascii text, long enough for words".into(), "é✓ ünïcödé".into()];
        for special in
            ['"', '\\', '\n', '\r', '\t', '\u{8}', '\u{c}', '\u{1}', '\u{1f}', '\u{7f}', ' ', '!', '#', '[', ']']
        {
            for at in 0..17 {
                let mut t: String = "abcdefghé-jklmnopq".chars().take(at).collect();
                t.push(special);
                t.push_str("tail");
                strings.push(t);
            }
        }
        for t in &strings {
            let v = json!({t.as_str(): [t, 0, -12, 1.5, u64::MAX, i64::MIN, null, true, false, {}, []]});
            let f = Frozen::from(&v);
            assert_eq!(f.json_len(), f.to_json().len(), "{t:?}");
            assert_eq!(f.to_json(), serde_json::to_string(&v).unwrap(), "{t:?}");
        }
        assert_eq!(Frozen::from(json!([])).json_len(), 2);
        assert_eq!(Frozen::from(json!({})).json_len(), 2);
    }

    #[test]
    fn same_as_is_equality_with_the_same_key_order_and_number_forms() {
        let v = json!({"a": 1, "b": [-2, 1.5, "x", null, true], "c": {"d": "a longer string than fourteen"}});
        let f = Frozen::from(&v);
        assert!(f.same_as(&v));
        assert!(f.same_as(&f.to_value()));
        let reordered = json!({"b": [-2, 1.5, "x", null, true], "a": 1, "c": {"d": "a longer string than fourteen"}});
        assert!(f == reordered && !f.same_as(&reordered), "equal, but not in the same order");
        assert!(!Frozen::from(&json!(1)).same_as(&json!(1.0)));
        assert!(!Frozen::from(&json!(0.0)).same_as(&json!(-0.0)));
        assert!(!f.same_as(&json!({"a": 1})));
        assert!(
            !f.same_as(&json!({"a": 1, "b": [-2, 1.5, "x", null, false], "c": {"d": "a longer string than fourteen"}}))
        );
    }

    #[test]
    fn a_tree_made_like_an_earlier_version_is_the_tree_of_the_value() {
        let old = Frozen::from(json!({"a": 1, "b": {"x": [1, {"y": "z"}], "w": "long enough to be boxed"}, "c": [0]}));
        for v in [
            json!({"a": 1, "b": {"x": [1, {"y": "z"}], "w": "long enough to be boxed"}, "c": [0]}),
            json!({"a": 2.5, "b": {"w": "other", "x": [1, {"y": "q", "n": null}, 3]}, "c": [], "d": {"e": -1}}),
            json!({"b": [1], "a": {"x": 1}}),
            json!([1, 2]),
            json!("text"),
        ] {
            let made = Frozen::from_like(&v, &old);
            assert!(made.same_as(&v), "{v}");
            assert_eq!(made.to_json(), Frozen::from(&v).to_json());
        }
    }

    /// A write that changes the status keeps the spec's nodes (the same allocation, not a
    /// copy), and the new status is its own.
    #[test]
    fn a_tree_made_like_an_earlier_version_shares_what_did_not_change() {
        let old = Frozen::from(json!({"metadata": {"name": "web-1", "labels": {"app": "web"}, "resourceVersion": "7"},
            "spec": {"containers": [{"name": "web", "image": "registry.example/nginx:1.27"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}}));
        let new = json!({"metadata": {"name": "web-1", "labels": {"app": "web"}, "resourceVersion": "8"},
            "spec": {"containers": [{"name": "web", "image": "registry.example/nginx:1.27"}]},
            "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}]}});
        let made = Frozen::from_like(&new, &old);
        assert!(made.same_as(&new));
        let node = |f: &Frozen, p: &str| match f.pointer(p) {
            Some(Frozen::Object(o)) => Arc::as_ptr(&o.0).cast::<u8>(),
            Some(Frozen::Array(a)) => Arc::as_ptr(a).cast::<u8>(),
            Some(Frozen::Str(t)) => Arc::as_ptr(t).cast::<u8>(),
            other => panic!("{p}: {other:?}"),
        };
        for shared in ["/spec", "/metadata/labels", "/spec/containers/0/image", "/status/conditions"] {
            assert_eq!(node(&made, shared), node(&old, shared), "{shared} is the old node");
        }
        for own in ["", "/metadata", "/status"] {
            assert_ne!(node(&made, own), node(&old, own), "{own:?} is a new node");
        }
    }

    #[test]
    fn a_new_resource_version_replaces_the_old_in_place() {
        let v =
            json!({"kind": "Pod", "metadata": {"name": "p", "resourceVersion": "7", "uid": "u"}, "spec": {"a": [1]}});
        let f = Frozen::from(&v).with_resource_version(12).unwrap();
        let mut w = v.clone();
        w["metadata"]["resourceVersion"] = json!("12");
        assert!(f.same_as(&w));
        assert!(Frozen::from(json!({"metadata": {"name": "p"}})).with_resource_version(1).is_none());
        assert!(Frozen::from(json!({"spec": {}})).with_resource_version(1).is_none());
    }

    #[test]
    fn equality_ignores_key_order_like_value() {
        assert_eq!(Frozen::from(json!({"a": 1, "b": 2})), Frozen::from(json!({"b": 2, "a": 1})));
        assert_ne!(Frozen::from(json!({"a": 1})), Frozen::from(json!({"a": 1.0})));
        assert_ne!(Frozen::from(json!({"a": 1})), Frozen::from(json!({"a": 1, "b": 2})));
        // Against a `Value`: in the same order, partly reordered, or with another key.
        let f = Frozen::from(json!({"a": 1, "b": {"x": [1, "two"], "y": null}, "c": "three"}));
        assert!(f == json!({"a": 1, "b": {"x": [1, "two"], "y": null}, "c": "three"}));
        assert!(f == json!({"a": 1, "c": "three", "b": {"y": null, "x": [1, "two"]}}));
        assert!(f != json!({"a": 1, "c": "three", "d": {"x": [1, "two"], "y": null}}));
        assert!(f != json!({"a": 1, "b": {"x": [1, "two"], "y": null}, "c": "four"}));
        assert!(f != json!({"b": {"x": [1, "two"], "y": null}, "c": "three", "a": 2}));
        assert_eq!(f.get("c").and_then(Frozen::as_str), Some("three"));
        assert!(f.get("").is_none() && f.get("cc").is_none() && f.get("d").is_none());
    }
}
