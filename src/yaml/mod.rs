//! YAML reading and writing for manifests, as kubectl reads them and prints them.
