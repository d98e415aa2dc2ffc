//! kubectl and `lab`: the command language of the console, lessons, embeds and transcripts.
