//! The times of an allowed-signers file (`valid-after="20240101"`), as seconds since 1970.

/// Reads `YYYYMMDD`, `YYYYMMDDHHMM` or `YYYYMMDDHHMMSS`, with an optional trailing `Z`.
///
/// ssh-keygen reads a time without `Z` in the machine's local time zone; this crate reads
/// every time as UTC, so that a check gives the same answer on every machine (docs say to
/// write the `Z`).
pub(crate) fn parse(text: &str) -> Option<i64> {
    let digits = text.strip_suffix(['Z', 'z']).unwrap_or(text);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> { digits.get(range)?.parse().ok() };
    let (hour, minute, second) = match digits.len() {
        8 => (0, 0, 0),
        12 => (num(8..10)?, num(10..12)?, 0),
        14 => (num(8..10)?, num(10..12)?, num(12..14)?),
        _ => return None,
    };
    let (year, month, day) = (num(0..4)?, num(4..6)?, num(6..8)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second)
}

/// `2024-01-31T12:00:00Z` for a time in seconds since 1970.
pub(crate) fn format_utc(at: i64) -> String {
    let days = at.div_euclid(86_400);
    let secs = at.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3_600,
        secs % 3_600 / 60,
        secs % 60
    )
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_lengths_read_as_utc() {
        assert_eq!(parse("19700101"), Some(0));
        assert_eq!(parse("19700101Z"), Some(0));
        assert_eq!(parse("20240229"), Some(1_709_164_800));
        assert_eq!(
            parse("202402291230"),
            Some(1_709_164_800 + 12 * 3600 + 30 * 60)
        );
        assert_eq!(parse("20240229123059Z"), Some(1_709_209_859));
    }

    #[test]
    fn impossible_dates_and_other_shapes_are_refused() {
        for bad in [
            "20230229",
            "20241301",
            "2024010",
            "202401011",
            "20240101250000",
            "2024-01-01",
            "",
            "Z",
            "+2024010",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn formatting_inverts_parsing() {
        for t in [0, 1_709_209_859, 4_102_444_800 - 1, -86_400] {
            let text = format_utc(t);
            let compact: String = text.chars().filter(|c| c.is_ascii_digit()).collect();
            assert_eq!(parse(&compact), Some(t), "{text}");
        }
    }
}
