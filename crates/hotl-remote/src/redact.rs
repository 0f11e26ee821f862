//! Redaction of log lines before they are published, with the share's redactor: each line's
//! text is redacted as it stands, and walked string by string when that would not leave the
//! same record (a replacement that crossed JSON's quoting).

use hotl_export::Redactor;
use hotl_export::redact::Report;

/// `lines` with every secret the redactor knows replaced; the report counts replacements by
/// kind (never a value).
pub fn lines(redactor: &Redactor, lines: &[u8], report: &mut Report) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines.split_inclusive(|&b| b == b'\n') {
        out.extend_from_slice(&one(redactor, line, report));
    }
    out
}

fn one(redactor: &Redactor, line: &[u8], report: &mut Report) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(line) else {
        // Not text: a damaged line, kept as damaged as it is.
        return line.to_vec();
    };
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut found = Report::new();
    // Without escapes, the line's text is its strings' text: redacted as it stands, its key
    // order kept. With them, a secret may be written escaped: the strings are walked.
    let mut fixed = None;
    if !body.contains('\\') {
        let mut redacted = body.to_owned();
        redactor.text(&mut redacted, &mut found);
        if found.is_empty() {
            return line.to_vec();
        }
        let same_record = serde_json::from_str::<serde_json::Value>(&redacted).is_ok()
            && hotl_log::seq_of(redacted.as_bytes()) == hotl_log::seq_of(body.as_bytes());
        if same_record {
            fixed = Some(redacted);
        } else {
            found.clear();
        }
    }
    let fixed = match fixed {
        Some(fixed) => fixed,
        None => match serde_json::from_str::<serde_json::Value>(body) {
            Ok(mut value) => {
                walk(redactor, &mut value, &mut found);
                if found.is_empty() {
                    return line.to_vec();
                }
                serde_json::to_string(&value).unwrap_or_else(|_| body.to_owned())
            }
            // Not JSON: a damaged line, redacted as text (it is skipped when read anyway).
            Err(_) => {
                let mut redacted = body.to_owned();
                redactor.text(&mut redacted, &mut found);
                redacted.replace('\n', " ")
            }
        },
    };
    for (kind, n) in found {
        *report.entry(kind).or_default() += n;
    }
    let mut out = fixed.into_bytes();
    if line.ends_with(b"\n") {
        out.push(b'\n');
    }
    out
}

fn walk(redactor: &Redactor, value: &mut serde_json::Value, report: &mut Report) {
    match value {
        serde_json::Value::String(s) => redactor.text(s, report),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| walk(redactor, v, report)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| walk(redactor, v, report)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_go_and_records_stay_records() {
        let redactor = Redactor::new(
            [("MY_TOKEN".to_owned(), "tok\"en-value-1234".to_owned())],
            &[],
            Some("/home/ann".to_owned()),
        );
        let input = concat!(
            "{\"seq\":1,\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"key sk-ant-abcdefghijklmnopqrstuvwxyz0123 in /home/ann/p\"}]}\n",
            "{\"seq\":2,\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"tok\\\"en-value-1234\"}]}\n",
            "{\"seq\":3,\"type\":\"user\",\"content\":[]}\n",
        );
        let mut report = Report::new();
        let out = lines(&redactor, input.as_bytes(), &mut report);
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("sk-ant-abc"), "{text}");
        assert!(!text.contains("/home/ann"), "{text}");
        assert!(!text.contains("en-value-1234"), "{text}");
        assert_eq!(text.lines().count(), 3);
        for (i, line) in text.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["seq"], i as u64 + 1);
        }
        assert!(report.values().sum::<usize>() >= 3);
        assert!(text.ends_with("{\"seq\":3,\"type\":\"user\",\"content\":[]}\n"));
    }
}
