//! The GitHub token read by `--token-stdin`: judged before it is sent, never shown.

use std::fmt;

/// The longest token accepted.
pub const MAX_TOKEN_LEN: usize = 1024;

/// A GitHub token that passed the checks. Its `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Why a token was refused; says where, never what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenProblem {
    /// Standard input is a terminal (nothing was piped in).
    Terminal,
    /// Nothing was read.
    Empty,
    /// Longer than [`MAX_TOKEN_LEN`] characters.
    TooLong(usize),
    /// A character outside 0x21–0x7E at this 1-based position.
    BadCharacter(usize),
}

impl fmt::Display for TokenProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenProblem::Terminal => f.write_str(
                "--token-stdin reads the token from a pipe, and standard input is a terminal; pipe it in, e.g. gh auth token | agentic-skill-vendor update --token-stdin",
            ),
            TokenProblem::Empty => f.write_str(
                "--token-stdin read nothing from standard input; pipe the token in, e.g. gh auth token | agentic-skill-vendor update --token-stdin",
            ),
            TokenProblem::TooLong(n) => write!(
                f,
                "the token read from standard input is {n} characters long, over the limit of {MAX_TOKEN_LEN}; check what is piped in"
            ),
            TokenProblem::BadCharacter(at) => write!(
                f,
                "the token read from standard input has a character that is not printable ASCII at position {at} (spaces and line breaks included); check what is piped in"
            ),
        }
    }
}

impl Token {
    /// Judges what was read from standard input: one trailing LF or CRLF removed, then at most
    /// 1024 characters, each 0x21–0x7E.
    ///
    /// # Errors
    /// The [`TokenProblem`], naming the position of a bad character but never the value.
    ///
    /// # Example
    /// ```
    /// use asv_remote::token::{Token, TokenProblem};
    /// assert!(Token::from_stdin_bytes(b"ghp_abc\n").is_ok());
    /// assert_eq!(Token::from_stdin_bytes(b"ghp a"), Err(TokenProblem::BadCharacter(4)));
    /// ```
    pub fn from_stdin_bytes(bytes: &[u8]) -> Result<Token, TokenProblem> {
        let bytes = bytes
            .strip_suffix(b"\r\n")
            .or_else(|| bytes.strip_suffix(b"\n"))
            .unwrap_or(bytes);
        if bytes.is_empty() {
            return Err(TokenProblem::Empty);
        }
        if let Some(i) = bytes.iter().position(|b| !(0x21..=0x7e).contains(b)) {
            return Err(TokenProblem::BadCharacter(i + 1));
        }
        if bytes.len() > MAX_TOKEN_LEN {
            return Err(TokenProblem::TooLong(bytes.len()));
        }
        Ok(Token(String::from_utf8_lossy(bytes).into_owned()))
    }

    /// The value, for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_table() {
        let ok: &[&[u8]] = &[b"abc", b"abc\n", b"abc\r\n", b"!~"];
        for input in ok {
            assert!(Token::from_stdin_bytes(input).is_ok(), "{input:?}");
        }
        let long = vec![b'a'; 1025];
        let bad: &[(&[u8], TokenProblem)] = &[
            (b"", TokenProblem::Empty),
            (b"\n", TokenProblem::Empty),
            (b"\r\n", TokenProblem::Empty),
            (b"abc\n\n", TokenProblem::BadCharacter(4)),
            (b"ab\rc", TokenProblem::BadCharacter(3)),
            (b"a\r\n\r\n", TokenProblem::BadCharacter(2)),
            (b"a b", TokenProblem::BadCharacter(2)),
            (b"\xc3\xa9", TokenProblem::BadCharacter(1)),
            (&long, TokenProblem::TooLong(1025)),
        ];
        for (input, problem) in bad {
            assert_eq!(Token::from_stdin_bytes(input).as_ref().err(), Some(problem));
        }
        assert_eq!(
            format!("{:?}", Token::from_stdin_bytes(b"secret")),
            "Ok(Token(<redacted>))"
        );
        let problem = Token::from_stdin_bytes(b"ghp_SECRETVALUE zz").expect_err("refused");
        assert!(
            !problem.to_string().contains("SECRETVALUE"),
            "the refusal never shows the value"
        );
    }
}
