//! JS values in and errors out: values read into the core's `Input`s (`input`), the one place a
//! `FlakeError` becomes a JS error (`error`), and the package's wording of bad values for the JS
//! modules that check their own (`messages`).

pub(crate) mod error;
pub(crate) mod input;
mod messages;
