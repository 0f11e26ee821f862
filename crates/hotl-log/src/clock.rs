//! The store's clock: the system clock, or a fixed instant for reproducible tests.

use std::time::SystemTime;

/// Where timestamps come from.
#[derive(Clone, Copy, Debug, Default)]
pub enum Clock {
    /// The system clock.
    #[default]
    System,
    /// Always this instant.
    Fixed(SystemTime),
}

impl Clock {
    /// The current instant.
    pub fn now(&self) -> SystemTime {
        match self {
            Clock::System => SystemTime::now(),
            Clock::Fixed(t) => *t,
        }
    }

    /// The current instant as a record timestamp.
    pub fn stamp(&self) -> String {
        format_ts(self.now())
    }
}

/// Formats an instant as a record timestamp: RFC 3339 UTC with milliseconds. Every timestamp
/// has this exact shape, so timestamps compare correctly as strings.
/// An instant past the year 9999 (which four digits of year cannot say) is stamped as the last
/// millisecond of 9999, never a panic.
pub fn format_ts(t: SystemTime) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(24);
    match write!(out, "{}", humantime::format_rfc3339_millis(t)) {
        Ok(()) => out,
        Err(_) => "9999-12-31T23:59:59.999Z".to_owned(),
    }
}

/// Parses a record timestamp (any RFC 3339 UTC form).
pub fn parse_ts(s: &str) -> Option<SystemTime> {
    humantime::parse_rfc3339_weak(s.trim_end_matches('Z')).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn an_instant_past_the_year_9999_is_stamped_without_a_panic() {
        let far = SystemTime::UNIX_EPOCH + Duration::from_millis(253_402_300_800_000);
        assert_eq!(format_ts(far), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn stamps_round_trip_and_sort_as_strings() {
        let a = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        let b = a + Duration::from_millis(1);
        assert_eq!(format_ts(a), "2023-11-14T22:13:20.123Z");
        assert_eq!(parse_ts(&format_ts(a)), Some(a));
        assert!(format_ts(a) < format_ts(b));
    }
}
