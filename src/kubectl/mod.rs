//! kubectl and `lab`: the command language of the console, lessons, embeds and transcripts.

pub mod flags;
pub mod gojson;
pub mod jsonpath;
pub mod printers;
pub mod shell;
pub mod table;
pub mod transcript;
