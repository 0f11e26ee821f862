//! How sessions are named for people in every renderer: the shortest unique id prefixes and
//! times relative to now.

use std::time::SystemTime;

/// The shortest id prefixes (at least 8 characters) that stay unique among a set of ids.
pub struct ShortIds {
    len: usize,
}

impl ShortIds {
    /// The prefix length that keeps every id of `ids` apart.
    pub fn new<'a>(ids: impl Iterator<Item = &'a str>) -> Self {
        let mut ids: Vec<&str> = ids.collect();
        ids.sort_unstable();
        let mut len = 8;
        for pair in ids.windows(2) {
            let common = pair[0]
                .bytes()
                .zip(pair[1].bytes())
                .take_while(|(a, b)| a == b)
                .count();
            len = len.max(common + 1);
        }
        ShortIds { len }
    }

    /// `id`'s short form.
    pub fn of<'a>(&self, id: &'a str) -> &'a str {
        &id[..self.len.min(id.len())]
    }
}

/// "3m ago", "5h ago", "4d ago", or the date for anything older than a month.
pub fn relative_time(ts: &str, now: SystemTime) -> String {
    let Some(then) = hotl_log::parse_ts(ts) else {
        return "?".to_owned();
    };
    let secs = now.duration_since(then).map_or(0, |d| d.as_secs());
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        86_400..2_592_000 => format!("{}d ago", secs / 86_400),
        _ => ts.get(..10).unwrap_or(ts).to_owned(),
    }
}

/// `n` with thousands separated by commas: 12,345.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_grow_until_unique() {
        let ids = ["01ABCDEFGH1", "01ABCDEFGH2", "01XYZ"];
        let short = ShortIds::new(ids.iter().copied());
        assert_eq!(short.of("01ABCDEFGH1"), "01ABCDEFGH1");
        assert_eq!(short.of("01XYZ"), "01XYZ");
        let short = ShortIds::new(["01AAAAAAAAAA", "01BBBBBBBBBB"].iter().copied());
        assert_eq!(short.of("01AAAAAAAAAA"), "01AAAAAA");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
