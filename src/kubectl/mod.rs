//! kubectl and `lab`: the command language of the console, lessons, embeds and transcripts.

pub mod gojson;
pub mod jsonpath;
pub mod printers;
pub mod shell;
pub mod table;
