//! Foreign timestamps made hotl's: RFC 3339 UTC with milliseconds. A timestamp that names no
//! zone is refused rather than read in this machine's zone (the file may come from another).

use std::time::{Duration, SystemTime};

/// Why a timestamp was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TsError {
    /// It names no zone (`2026-01-01T10:00:00`).
    NoZone,
    /// It is not a date and time at all.
    Malformed,
}

/// `2026-01-14T19:20:03.207Z`, `…+02:00`, `…-0500`: the instant, as hotl stamps it.
pub(crate) fn normalize(ts: &str) -> Result<String, TsError> {
    parse(ts).map(hotl_log::format_ts)
}

/// The last millisecond of year 9999: a record timestamp has four digits of year.
const LAST_MS: u64 = 253_402_300_799_999;

/// Milliseconds since the epoch (pi and Codex legacy files use numbers); `None` past the
/// year 9999, which no timestamp can say.
pub(crate) fn from_millis(ms: u64) -> Option<String> {
    (ms <= LAST_MS).then(|| hotl_log::format_ts(SystemTime::UNIX_EPOCH + Duration::from_millis(ms)))
}

/// Parses an RFC 3339 / ISO 8601 timestamp with a zone.
pub(crate) fn parse(ts: &str) -> Result<SystemTime, TsError> {
    let b = ts.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Result<i64, TsError> {
        let s = b.get(r).ok_or(TsError::Malformed)?;
        if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
            return Err(TsError::Malformed);
        }
        Ok(s.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return Err(TsError::Malformed);
    }
    if b[13] != b':' || b[16] != b':' {
        return Err(TsError::Malformed);
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return Err(TsError::Malformed);
    }
    let mut at = 19;
    let mut nanos: i64 = 0;
    if b.get(at) == Some(&b'.') || b.get(at) == Some(&b',') {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == start {
            return Err(TsError::Malformed);
        }
        let digits = &b[start..at.min(start + 9)];
        nanos = digits
            .iter()
            .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'))
            * 10i64.pow(9 - digits.len() as u32);
    }
    let offset_minutes = match b.get(at) {
        None => return Err(TsError::NoZone),
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let rest = &b[at + 1..];
            let (h, m) = match rest.len() {
                5 if rest[2] == b':' => (num(at + 1..at + 3)?, num(at + 4..at + 6)?),
                4 => (num(at + 1..at + 3)?, num(at + 3..at + 5)?),
                2 => (num(at + 1..at + 3)?, 0),
                _ => return Err(TsError::Malformed),
            };
            let sign = if sign == b'-' { -1 } else { 1 };
            sign * (h * 60 + m)
        }
        _ => return Err(TsError::Malformed),
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second.min(59) - offset_minutes * 60;
    let secs = u64::try_from(secs).map_err(|_| TsError::Malformed)?;
    Ok(SystemTime::UNIX_EPOCH + Duration::new(secs, nanos as u32))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_converted_to_utc_with_milliseconds() {
        assert_eq!(
            normalize("2026-01-14T19:20:03.207Z").as_deref(),
            Ok("2026-01-14T19:20:03.207Z")
        );
        assert_eq!(
            normalize("2026-05-11T11:26:55.123456+02:00").as_deref(),
            Ok("2026-05-11T09:26:55.123Z")
        );
        assert_eq!(
            normalize("2026-03-01T00:30:00-0100").as_deref(),
            Ok("2026-03-01T01:30:00.000Z")
        );
        assert_eq!(
            normalize("2024-02-29T23:59:59Z").as_deref(),
            Ok("2024-02-29T23:59:59.000Z")
        );
    }

    #[test]
    fn a_timestamp_without_a_zone_is_refused() {
        assert_eq!(normalize("2026-01-14T19:20:03.207"), Err(TsError::NoZone));
        assert_eq!(normalize("yesterday"), Err(TsError::Malformed));
        assert_eq!(normalize("2026-13-01T00:00:00Z"), Err(TsError::Malformed));
    }

    #[test]
    fn millis_are_stamped() {
        assert_eq!(
            from_millis(1_700_000_000_123).as_deref(),
            Some("2023-11-14T22:13:20.123Z")
        );
        assert_eq!(
            from_millis(LAST_MS).as_deref(),
            Some("9999-12-31T23:59:59.999Z")
        );
        assert_eq!(from_millis(LAST_MS + 1), None);
        assert_eq!(from_millis(u64::MAX), None);
    }
}
