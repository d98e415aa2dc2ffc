//! Exact cases for the reader and the writer.
