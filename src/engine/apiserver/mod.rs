//! The API server: storage with one global resourceVersion, the verbs and their rules, watches.
