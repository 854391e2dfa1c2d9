//! Every way configuring or generating an id can fail, with the JS class and `code` it is
//! thrown as. The mapping to actual JS errors lives in one place: `js::error`.

use std::borrow::Cow;

use thiserror::Error;

use crate::input::{Input, QuotedPath};

/// How often a call waiting for a lease's renewal looks again, in ms.
pub const LEASE_POLL_MS: u64 = 10;

/// A number of time units, as `TimestampOverflow` says it.
fn units(unit_ms: u16) -> String {
  match unit_ms {
    1 => "ms".into(),
    unit => format!("units of {unit} ms"),
  }
}

/// `idOffset` as `IdFromRange` says it: nothing when it is 0.
fn plus_offset(offset: u16) -> String {
  match offset {
    0 => String::new(),
    offset => format!(" plus idOffset {offset}"),
  }
}

/// Why a text is not an id of its form (see `kinds::text::Form::read`), as `Text` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFault {
  /// It has this many characters, not the form's.
  Length(usize),
  /// A character outside the form's alphabet, and its index (in characters).
  Character { character: char, at: usize },
  /// Its value is past what the id's bits hold.
  Past { bits: u32 },
  /// Decimal digits that start with a 0 (and are not "0").
  LeadingZero,
}

impl std::fmt::Display for TextFault {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    match self {
      Self::Length(1) => f.write_str("it has 1 character"),
      Self::Length(length) => write!(f, "it has {length} characters"),
      Self::Character { character, at } => {
        write!(
          f,
          "{:?} at index {at} is not one of them",
          character.to_string()
        )
      }
      Self::Past { bits } => write!(f, "it is past 2^{bits} - 1"),
      Self::LeadingZero => f.write_str("it starts with a 0, which decimal ids never do"),
    }
  }
}

/// The JavaScript error class an error is thrown as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
  Error,
  TypeError,
  RangeError,
}

/// Why an id could not be issued, or a generator not configured.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FlakeError {
  /// flake-idgen's exact message: code matching on it keeps working.
  #[error(
    "Sequence exceeded its maximum value. Provide callback function to handle sequence overflow"
  )]
  SequenceOverflow { wait_ms: u64 },

  /// flake-idgen's exact message.
  #[error("Clock moved backwards. Refusing to generate id for {ms} milliseconds")]
  ClockBackwards { ms: u64, wait_ms: u64 },

  /// The clock reads a time before the epoch (ids would have a negative timestamp).
  #[error("Clock reads {now} ms, before the epoch {epoch}. Refusing to generate id for {} milliseconds", epoch - now)]
  ClockBeforeEpoch { now: u64, epoch: u64 },

  /// The time since the epoch no longer fits the layout's time bits.
  #[error("Timestamp {delta} {} after the epoch does not fit in {bits} bits (at most {}); use a later epoch", units(*unit_ms), (1u64 << bits) - 1)]
  TimestampOverflow { delta: u64, bits: u8, unit_ms: u16 },

  /// A 128-bit kind's millisecond used up by a clock of the user's (`SequenceOverflow` as its
  /// users read it: they have no callback to provide).
  #[error("{maker}: all {per_ms} ids of the millisecond the `clock` option reads are made; more are made once it reads a later one (a clock that stands still makes no more)")]
  WideSequenceOverflow {
    maker: &'static str,
    per_ms: u32,
    wait_ms: u64,
  },

  /// A 128-bit kind's clock past what the host's state counts (`TimestampOverflow` as its
  /// users read it: they have no epoch, and the id's time field has room).
  #[error("{maker}: {clock} reads {now} ms since 1970, past {last}, the last millisecond ids can be made for (the state the host's processes share counts {bits} bits of ms)")]
  WidePastEnd {
    maker: &'static str,
    clock: &'static str,
    now: u64,
    last: u64,
    bits: u32,
  },

  /// The options argument is neither an object nor `undefined`/`null`.
  #[error("options must be an object, got {got}")]
  OptionsNotObject { got: Input },

  /// The option has a type it can never take (e.g. a boolean, or a string that is not a number).
  #[error("option `{option}` must be {expected}, got {got}")]
  OptionType {
    option: Cow<'static, str>,
    expected: String,
    got: Input,
  },

  /// The option is a number (or numeric string) outside what it may be.
  #[error("option `{option}` must be {expected}, got {got}")]
  OptionRange {
    option: Cow<'static, str>,
    expected: String,
    got: Input,
  },

  /// A function argument has a type it can never take.
  #[error("The \"{argument}\" argument must be {expected}, got {got}")]
  ArgumentType {
    argument: Cow<'static, str>,
    expected: String,
    got: Input,
  },

  /// A string argument that is not in the expected form.
  #[error("The \"{argument}\" argument must be {expected}, got {got}")]
  ArgumentValue {
    argument: Cow<'static, str>,
    expected: String,
    got: Input,
  },

  /// A numeric argument outside what it may be.
  #[error("The \"{argument}\" argument must be {expected}, got {got}")]
  ArgumentRange {
    argument: Cow<'static, str>,
    expected: String,
    got: Input,
  },

  /// A text argument that is not an id of its form (`expected`), and why: as Node's codes for a
  /// bad value say it, a value past the id's bits as one out of range.
  #[error("The \"{argument}\" argument must be {expected}, got {got}: {fault}")]
  Text {
    argument: Cow<'static, str>,
    expected: String,
    got: Input,
    fault: TextFault,
  },

  /// What `idFrom` reads is not set (or empty), or the host's name cannot be read: no node id
  /// is taken by default. `variable` says what was read, `hint` who sets it.
  #[error("idFrom '{id_from}': {variable} is {}{hint}", if *empty { "empty" } else { "not set" })]
  IdFromUnset {
    id_from: String,
    variable: String,
    empty: bool,
    hint: String,
  },

  /// What `idFrom` read holds no node id: a pod's name with no ordinal at its end, or not a
  /// whole number. `read` says where it was read.
  #[error("idFrom '{id_from}': {read} is {value}, {problem}")]
  IdFromValue {
    id_from: String,
    read: String,
    value: Input,
    problem: &'static str,
  },

  /// The number `idFrom` read, plus `idOffset`, is past the layout's last node id.
  #[error("idFrom '{id_from}': {read} is {value}, whose number{} is past the layout's last node id, {max}", plus_offset(*offset))]
  IdFromRange {
    id_from: String,
    read: String,
    value: Input,
    offset: u16,
    max: u16,
  },

  /// The `clock` function returned something that is not a number.
  #[error("clock() must return a number of milliseconds since 1970, got {got}")]
  ClockType { got: Input },

  /// The `clock` function returned NaN, an infinity, a negative or an unsafe integer.
  #[error(
    "clock() must return a finite, non-negative number of milliseconds since 1970, got {got}"
  )]
  ClockRange { got: Input },

  /// The host-scope state directory cannot be used safely (missing and not creatable, a
  /// symlink, owned by another user, writable by others, not absolute).
  #[error("state directory {} cannot be used: {reason}", QuotedPath(dir))]
  StateDir { dir: String, reason: String },

  /// A generator id this process issues from one state directory was given another: two
  /// states would issue the same ids. Never a reason to fall back to another directory.
  #[error("state directory {} cannot be used for generator id {id}: this process issues its ids from the state in {} already; one id has one state (give its generators one stateDir)", QuotedPath(dir), QuotedPath(other))]
  StateDirTaken { dir: String, other: String, id: u16 },

  /// A generator id this process issues from the host's state was asked for with scope
  /// `'process'`, or the other way round: the two states would issue the same ids.
  #[error("generator id {id} cannot issue from {asked} in this process: it issues from {has} already; one id has one state in a process (give its generators one scope)")]
  StateScopeTaken { id: u16, asked: String, has: String },

  /// A state file is not one this version wrote, or not safe to map (wrong size or header, a
  /// symlink, owned by another user): refused rather than reset.
  #[error("state file {} cannot be used: {reason}", QuotedPath(path))]
  StateFile { path: String, reason: String },

  /// A state file another process holds locked for longer than a mapping takes (a reset, or a
  /// first mapping stopped halfway): never a reason to fall back to another directory, where
  /// the same generator id would issue from a second state.
  #[error("state file {} cannot be used now: {reason}", QuotedPath(path))]
  StateBusy { path: String, reason: String },

  /// The OS was short of something for a moment (descriptors, memory, disk space: see
  /// `os::transient`) while the state directory or file was opened. Never a reason to
  /// fall back to another directory or to process scope, where the generator id would issue
  /// from a second state, and never remembered: the next generator made tries again.
  #[error("{what} {} cannot be opened now: {reason} ({errno}); this is transient: no other state is used instead, and the next generator made tries again", QuotedPath(path))]
  StateUnavailable {
    what: &'static str,
    path: String,
    reason: String,
    errno: &'static str,
  },

  /// A leased generator reached the ceiling its store acknowledged: nothing past it may be
  /// issued until a renewal raises it (or a new lease is had).
  #[error("Lease expired: no id may be issued past the lease's ceiling ({ceiling} ms since 1970) until the lease is renewed")]
  LeaseExpired { ceiling: u64 },

  /// A leased generator was closed: its lease is released, and it issues no more ids.
  #[error("Lease closed: this generator released its lease and issues no more ids")]
  LeaseClosed,

  /// The state file this generator issued from is no longer the host's: removed, replaced,
  /// truncated, or its directory removed or made unsafe. Nothing more is issued from it; a new
  /// `FlakeId` opens the directory's current file.
  #[error(
    "state file {} was lost: {reason}; this generator issues no more ids (make a new one)",
    QuotedPath(path)
  )]
  StateLost { path: String, reason: String },

  /// The OS's random source failed (UUIDv7's random bits come from it, and from nothing else).
  #[error("the OS's random source failed: {reason}")]
  Random { reason: String },

  /// A reset was asked for while a process has the state file open.
  #[error(
    "state file {} is in use by a running process; stop it first",
    QuotedPath(path)
  )]
  StateInUse { path: String },

  /// A synchronous call waiting for the next time unit (every id of the clock's is used) found
  /// the clock not getting there, for longer than the wait should have taken (a clock stopped,
  /// or stepped back by less than a unit): it gives up rather than hang.
  #[error("The clock did not advance for {waited_ms} ms while waiting for the next time unit (every id of the current one is used); refusing to wait longer")]
  ClockStalled { waited_ms: u64 },

  /// A synchronous call waited `waited_ms` for `units` time units in a row, each of whose ids
  /// other generators of its id took before it could take one: it gives up rather than block
  /// longer.
  #[error("Other generators sharing this generator id's state (threads or processes) took every id of {units} time units in a row ({waited_ms} ms) before this call could take one; next(callback) and nextAsync() wait without blocking")]
  SequenceBusy { units: u32, waited_ms: u64 },
}

impl FlakeError {
  /// The stable `code` property of the thrown error.
  pub fn code(&self) -> &'static str {
    match self {
      Self::SequenceOverflow { .. } | Self::WideSequenceOverflow { .. } => {
        "ERR_FLAKE_SEQUENCE_OVERFLOW"
      }
      Self::ClockBackwards { .. } => "ERR_FLAKE_CLOCK_BACKWARDS",
      Self::ClockBeforeEpoch { .. } => "ERR_FLAKE_CLOCK_BEFORE_EPOCH",
      Self::TimestampOverflow { .. } | Self::WidePastEnd { .. } => "ERR_FLAKE_TIMESTAMP_OVERFLOW",
      Self::OptionsNotObject { .. } | Self::OptionType { .. } | Self::OptionRange { .. } => {
        "ERR_FLAKE_INVALID_OPTION"
      }
      Self::ClockType { .. } | Self::ClockRange { .. } => "ERR_FLAKE_INVALID_CLOCK",
      Self::IdFromUnset { .. } | Self::IdFromValue { .. } | Self::IdFromRange { .. } => {
        "ERR_FLAKE_ID_FROM"
      }
      Self::StateDir { .. } | Self::StateDirTaken { .. } | Self::StateScopeTaken { .. } => {
        "ERR_FLAKE_STATE_DIR"
      }
      Self::StateFile { .. } | Self::StateBusy { .. } => "ERR_FLAKE_STATE_FILE",
      Self::StateUnavailable { .. } => "ERR_FLAKE_STATE_UNAVAILABLE",
      Self::StateInUse { .. } => "ERR_FLAKE_STATE_IN_USE",
      Self::StateLost { .. } => "ERR_FLAKE_STATE_LOST",
      Self::LeaseExpired { .. } => "ERR_FLAKE_LEASE_EXPIRED",
      Self::LeaseClosed => "ERR_FLAKE_LEASE_CLOSED",
      Self::Random { .. } => "ERR_FLAKE_RANDOM",
      Self::ClockStalled { .. } => "ERR_FLAKE_CLOCK_STALLED",
      Self::SequenceBusy { .. } => "ERR_FLAKE_SEQUENCE_BUSY",
      // Node's own codes for bad arguments.
      Self::ArgumentType { .. } => "ERR_INVALID_ARG_TYPE",
      Self::ArgumentValue { .. } => "ERR_INVALID_ARG_VALUE",
      Self::ArgumentRange { .. }
      | Self::Text {
        fault: TextFault::Past { .. },
        ..
      } => "ERR_OUT_OF_RANGE",
      Self::Text { .. } => "ERR_INVALID_ARG_VALUE",
    }
  }

  /// The JS error class: `TypeError` for a wrong type, `RangeError` for a number out of range.
  pub fn kind(&self) -> ErrorKind {
    match self {
      Self::SequenceOverflow { .. }
      | Self::WideSequenceOverflow { .. }
      | Self::ClockBackwards { .. }
      | Self::ClockBeforeEpoch { .. }
      | Self::StateDir { .. }
      | Self::StateDirTaken { .. }
      | Self::StateScopeTaken { .. }
      | Self::StateFile { .. }
      | Self::StateBusy { .. }
      | Self::StateUnavailable { .. }
      | Self::StateInUse { .. }
      | Self::StateLost { .. }
      | Self::LeaseExpired { .. }
      | Self::LeaseClosed
      | Self::Random { .. }
      | Self::ClockStalled { .. }
      | Self::SequenceBusy { .. }
      | Self::IdFromUnset { .. } => ErrorKind::Error,
      Self::OptionsNotObject { .. }
      | Self::OptionType { .. }
      | Self::IdFromValue { .. }
      | Self::ClockType { .. }
      | Self::ArgumentType { .. }
      | Self::ArgumentValue { .. } => ErrorKind::TypeError,
      Self::TimestampOverflow { .. }
      | Self::WidePastEnd { .. }
      | Self::OptionRange { .. }
      | Self::IdFromRange { .. }
      | Self::ClockRange { .. }
      | Self::ArgumentRange { .. }
      | Self::Text {
        fault: TextFault::Past { .. },
        ..
      } => ErrorKind::RangeError,
      Self::Text { .. } => ErrorKind::TypeError,
    }
  }

  /// How many milliseconds the clock must advance before the same call can succeed, for the
  /// errors that waiting cures; `None` for the ones it never will.
  pub fn wait_ms(&self) -> Option<u64> {
    match self {
      Self::SequenceOverflow { wait_ms }
      | Self::WideSequenceOverflow { wait_ms, .. }
      | Self::ClockBackwards { wait_ms, .. } => Some(*wait_ms),
      Self::ClockBeforeEpoch { now, epoch } => Some(epoch - now),
      // Not the clock but a renewal cures it: waiting calls look again this often.
      Self::LeaseExpired { .. } => Some(LEASE_POLL_MS),
      _ => None,
    }
  }
}
