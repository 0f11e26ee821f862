//! hotl's sessions taken out: export, redaction, trimming and sealing.
