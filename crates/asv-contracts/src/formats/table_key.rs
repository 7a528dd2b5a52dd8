//! How a `contracts` key of the table of origins is written so both tools read it back.
//!
//! This tool reads a plain key as the id it spells (`007` is the id `007`). The TypeScript
//! tool of the same name reads the table with the YAML 1.2 core schema and names each row by
//! the JavaScript text of the key's value (`String(value)`): a plain `123` is the number 123
//! and so the id `123` again, but a plain `007` is 7, `0x1f` is 31 and `1e3` is 1000 (issue 29
//! §6). That tool writes every key plain; a key written here is plain where that tool reads
//! it back as the same id, and double-quoted only where it would read another.
//!
//! Written here rather than taken from a crate: what matters is one program's reading
//! (its schema's patterns, then JavaScript's number-to-text rule), not YAML in general.

use std::borrow::Cow;

use asv_model::id::ContractId;

/// How `id` is written as a key of `contracts`: plain when the TypeScript tool reads the plain
/// key back as `id`, double-quoted otherwise (`"007"`, `"0x1f"`, `"1e3"`, `"1.0"`). An id
/// holds only `a-z0-9._-`, so the quotes need no escape.
///
/// # Example
/// ```
/// # fn main() -> Result<(), asv_model::id::IdProblem> {
/// use asv_contracts::table_key::key_of;
/// use asv_model::id::ContractId;
/// assert_eq!(key_of(&ContractId::parse("123")?), "123");
/// assert_eq!(key_of(&ContractId::parse("true")?), "true");
/// assert_eq!(key_of(&ContractId::parse("007")?), "\"007\"");
/// # Ok(())
/// # }
/// ```
pub fn key_of(id: &ContractId) -> String {
    if typescript_reading(id.as_str()) == id.as_str() {
        id.to_string()
    } else {
        format!("\"{id}\"")
    }
}

/// The id the TypeScript tool reads from a plain (unquoted) key spelled `plain`: the key's
/// YAML 1.2 core value (null, boolean, integer or float, else the text itself) as JavaScript
/// writes it. `null` and `~` read as `null`; `True` as `true`; `007` as `7`;
/// `0o17` as `15`; `1.50` as `1.5`; `1e21` as `1e+21`; `.inf` as `Infinity`.
///
/// An integer in hexadecimal or octal past 2^53 may come out a unit off in its last digits
/// (JavaScript rounds it once; this rounds in steps), which never makes it equal to its
/// spelling, the one question [`key_of`] asks.
///
/// # Example
/// ```
/// use asv_contracts::table_key::typescript_reading;
/// assert_eq!(typescript_reading("007"), "7");
/// assert_eq!(typescript_reading("0x1f"), "31");
/// assert_eq!(typescript_reading("report-format"), "report-format");
/// ```
pub fn typescript_reading(plain: &str) -> Cow<'_, str> {
    match plain {
        "" | "~" | "null" | "Null" | "NULL" => return Cow::Borrowed("null"),
        "true" | "True" | "TRUE" => return Cow::Borrowed("true"),
        "false" | "False" | "FALSE" => return Cow::Borrowed("false"),
        _ => {}
    }
    match core_integer(plain).or_else(|| core_float(plain)) {
        Some(value) => Cow::Owned(number_text(value)),
        None => Cow::Borrowed(plain),
    }
}

/// The value of a core-schema integer (`0o17`, `0x1F`, `-12`), when it is one and finite.
fn core_integer(text: &str) -> Option<f64> {
    let in_radix = |digits: &str, radix: u32| -> Option<f64> {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let value = match u128::from_str_radix(digits, radix) {
            // Rounded once, as JavaScript does, while the value fits.
            Ok(n) => n as f64,
            Err(_) => digits.chars().fold(0.0, |acc, c| {
                acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
            }),
        };
        value.is_finite().then_some(value)
    };
    // The prefixed forms take no sign in the core schema.
    if let Some(digits) = text.strip_prefix("0o") {
        return in_radix(digits, 8);
    }
    if let Some(digits) = text.strip_prefix("0x") {
        return in_radix(digits, 16);
    }
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: f64 = digits.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// The value of a core-schema float (`1.5`, `1.`, `.5`, `1e3`, `-.inf`, `.nan`), when it is
/// one; a finite spelling whose value overflows stays text, as in the TypeScript tool.
fn core_float(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let sign = if negative { -1.0 } else { 1.0 };
    if matches!(rest, ".inf" | ".Inf" | ".INF") {
        return Some(sign * f64::INFINITY);
    }
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    // Digits with an optional fraction (`1`, `1.`, `1.5`) or a fraction alone (`.5`), then an
    // optional exponent.
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        None => !whole.is_empty() && digits(whole),
        Some(f) if whole.is_empty() => !f.is_empty() && digits(f),
        Some(f) => digits(whole) && digits(f),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if !mantissa_ok || !exponent_ok {
        return None;
    }
    let value: f64 = rest.to_ascii_lowercase().parse().ok()?;
    value.is_finite().then_some(sign * value)
}

/// A number as JavaScript's `String(number)` writes it: the shortest digits that read back
/// as the same double, plain from 1e-6 up to below 1e21, with an exponent (`1e+21`, `1e-7`)
/// outside that.
fn number_text(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value == 0.0 {
        // Negative zero too.
        return "0".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    // Rust's `{:e}` writes the shortest round-tripping digits: `d[.ddd]e<exp>`.
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exp) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i64 = exp.parse().unwrap_or(0);
    let k = digits.len() as i64;
    // Where the decimal point falls after the first `n` digits.
    let n = exp + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e_sign = if n - 1 < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        format!("{first}{fraction}e{e_sign}{}", (n - 1).abs())
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row: a plain key and the id the TypeScript tool (js-yaml 5.2.3 on Node 20) was
    /// seen to read from it.
    #[test]
    fn readings_match_the_typescript_tool() {
        let rows: &[(&str, &str)] = &[
            ("123", "123"),
            ("0", "0"),
            ("00", "0"),
            ("007", "7"),
            ("0x1f", "31"),
            ("0o17", "15"),
            ("0b101", "0b101"),
            ("1e3", "1000"),
            ("12e03", "12000"),
            ("1.5e3", "1500"),
            ("0e0", "0"),
            ("1.5", "1.5"),
            ("1.0", "1"),
            ("1.", "1"),
            ("0.", "0"),
            ("0.10", "0.1"),
            (".5", "0.5"),
            ("1e-7", "1e-7"),
            ("1e21", "1e+21"),
            ("1e400", "1e400"),
            ("9007199254740993", "9007199254740992"),
            ("123456789012345678901", "123456789012345680000"),
            ("1234567890123456789012", "1.2345678901234568e+21"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1e-7"),
            (".inf", "Infinity"),
            ("-.inf", "-Infinity"),
            (".nan", "NaN"),
            ("true", "true"),
            ("True", "true"),
            ("FALSE", "false"),
            ("null", "null"),
            ("~", "null"),
            ("+1", "1"),
            ("-1", "-1"),
            ("-0", "0"),
            ("1_000", "1_000"),
            ("0x_1f", "0x_1f"),
            ("0x", "0x"),
            ("yes", "yes"),
            ("2001-12-14", "2001-12-14"),
            ("1.2.3", "1.2.3"),
            ("1e", "1e"),
            ("report-format", "report-format"),
        ];
        for (plain, read) in rows {
            assert_eq!(typescript_reading(plain), *read, "{plain:?}");
        }
    }

    #[test]
    fn keys_are_quoted_only_where_the_plain_key_reads_as_another_id() {
        let rows: &[(&str, &str)] = &[
            ("123", "123"),
            ("0", "0"),
            ("9", "9"),
            ("true", "true"),
            ("false", "false"),
            ("null", "null"),
            ("1.5", "1.5"),
            ("1e-7", "1e-7"),
            ("1e400", "1e400"),
            ("0b101", "0b101"),
            ("1_000", "1_000"),
            ("a", "a"),
            ("007", "\"007\""),
            ("00", "\"00\""),
            ("0x1f", "\"0x1f\""),
            ("0o17", "\"0o17\""),
            ("1e3", "\"1e3\""),
            ("1.0", "\"1.0\""),
            ("1.", "\"1.\""),
            ("0.10", "\"0.10\""),
            ("9007199254740993", "\"9007199254740993\""),
            ("9007199254740994", "9007199254740994"),
            ("1e21", "\"1e21\""),
        ];
        for (id, key) in rows {
            let id = ContractId::parse(id).unwrap();
            assert_eq!(key_of(&id), *key, "{id}");
        }
    }
}
