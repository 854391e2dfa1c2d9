//! The kinds of id, as data: one module per kind (`layout`: the 64-bit ids of every layout;
//! `uuid`: UUIDv7; `flake128`: Boundary's flake) and one table, `KINDS`, with each kind's
//! shape, bytes, text and parts. Every 128-bit id is made from an id of a 64-bit layout (its
//! row's `shape`), taken from a shared state as any id is, so the whole of a kind's machinery is
//! the state, the settings and the id functions of the 64-bit ids plus what its module adds:
//! the bits around that id, its text, how it is read back and its parts, which its row holds as
//! functions (`Does`). The N-API layer serves every 128-bit kind through its row (`Wide`), its
//! per-id functions compiled once per kind with the row as constants (`each_wide!`). Adding a
//! kind is a module here and its row in `each_kind!` (which `Kind`, `KINDS` and the TypeScript
//! `KindName` are built from), past `ARMS` kinds an arm of `each_wide!`, and on the JS side its
//! file `lib/kinds/<name>.js` and its command's row (docs/ARCHITECTURE.md, "Adding an id kind").

mod behaviour;
pub mod flake128;
pub mod layout;
pub mod text;
pub mod uuid;

pub use behaviour::{Does, PartValue, Parts, Text};

use crate::error::FlakeError;
use crate::input::Input;
use layout::Shape;
use text::Form;

/// What a kind is, and what its ids do.
#[derive(Debug)]
pub struct Row {
  pub kind: Kind,
  /// Its name in JS (`configure`'s and the read-back functions' `kind`) and in the command's
  /// `decompose` output (`"type"`).
  pub name: &'static str,
  /// What the package exports for it (`index.js`), as `flake-idgen state` lists the kinds a
  /// state file serves.
  pub export: &'static str,
  /// What its errors call one (and the command's `decompose`, refusing a flag for 64-bit ids).
  pub title: &'static str,
  /// What makes them, as its errors begin.
  pub maker: &'static str,
  /// Bytes of one id.
  pub bytes: usize,
  /// The 64-bit layout its ids are made from; `None`: the `layout` option's.
  pub shape: Option<Shape>,
  /// The largest worker id its ids carry, if they carry the call's (`SCRATCH_WORKER`): only
  /// those read it.
  pub worker: Option<u64>,
  /// How many random bits its ids carry: only those that carry some draw them.
  pub random_bits: u32,
  /// Its text form, as the readers' errors say it.
  pub text: &'static str,
  /// Its bytes, as the readers' errors say them.
  pub bytes_expected: &'static str,
  /// Its text forms, as the command's `decompose` says them after its `title` in refusing a
  /// text of no kind's form; `None`: the title says enough (a UUID's form is well known).
  pub forms: Option<&'static str>,
  /// The names of its parts after `timestamp` and `date`, in the order `decompose` gives them
  /// (a layout's node id parts come from the layout).
  pub parts: &'static [&'static str],
  /// What its 128-bit ids do, its module's functions; `None` for the 64-bit ids, which the id
  /// functions write themselves.
  pub wide: Option<Does>,
}

/// Every kind, a row each: its `Kind` variant (with its doc) and its row of `KINDS` (but for
/// `kind`, the variant). The one list of kinds: `$then` builds from it what names every kind,
/// `Kind` and `KINDS` here (`kind_table!`), and in the N-API layer `KindName`, the TypeScript
/// type of a kind's name.
macro_rules! each_kind {
  ($then:ident) => {
    $then! {
      /// 64-bit ids of a layout (`FlakeId`): flake-idgen's, a preset or a custom one.
      FlakeId => {
        name: "flakeId",
        export: "FlakeId",
        title: "a 64-bit id",
        maker: "FlakeId",
        bytes: 8,
        shape: None,
        worker: None,
        random_bits: 0,
        text: layout::decompose::ID_EXPECTED,
        bytes_expected: "a Buffer of 8 bytes",
        forms: None,
        parts: &["id", "sequence"],
        wide: None,
      },
      /// UUIDv7s (`uuidv7`).
      Uuidv7 => {
        name: "uuidv7",
        export: "uuidv7",
        title: "a UUIDv7",
        maker: "uuidv7()",
        bytes: 16,
        shape: Some(uuid::SHAPE),
        worker: None,
        random_bits: uuid::RANDOM_BITS,
        text: uuid::EXPECTED,
        bytes_expected: uuid::BYTES_EXPECTED,
        forms: None,
        parts: &["sequence", "random"],
        wide: Some(uuid::DOES),
      },
      /// Boundary's flakes (`Flake128`).
      Flake128 => {
        name: "flake128",
        export: "Flake128",
        title: "a Flake128",
        maker: "Flake128",
        bytes: 16,
        shape: Some(flake128::SHAPE),
        worker: Some(flake128::MAX_WORKER),
        random_bits: 0,
        text: flake128::BASE62_EXPECTED,
        bytes_expected: "16 bytes",
        forms: Some("22 base62 characters, or 0x and 32 hex digits"),
        parts: &["worker", "sequence"],
        wide: Some(flake128::DOES),
      },
    }
  };
}
pub(crate) use each_kind;

/// `Kind` and `KINDS` from `each_kind!`'s list.
macro_rules! kind_table {
  ($($(#[$doc:meta])* $kind:ident => { $($field:ident: $value:expr),* $(,)? }),* $(,)?) => {
    /// A kind of id; its row in `KINDS` says what it is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Kind {
      $($(#[$doc])* $kind,)*
    }

    /// Every kind, in `Kind`'s order. A static, not a const: rows are handed out by reference,
    /// and a const is a fresh value at each use.
    pub static KINDS: [Row; [$(Kind::$kind),*].len()] = [$(Row {
      kind: Kind::$kind,
      $($field: $value,)*
    }),*];
  };
}
each_kind!(kind_table);

/// The largest worker id any kind's ids carry: what a call's `SCRATCH_WORKER` may hold.
pub const MAX_WORKER: u64 = {
  let (mut max, mut at) = (0, 0);
  while at < KINDS.len() {
    if let Some(worker) = KINDS[at].worker {
      if worker > max {
        max = worker;
      }
    }
    at += 1;
  }
  max
};

/// How many kinds are 128-bit (have `wide`).
pub const WIDE_COUNT: usize = {
  let (mut count, mut at) = (0, 0);
  while at < KINDS.len() {
    count += KINDS[at].wide.is_some() as usize;
    at += 1;
  }
  count
};

/// The 128-bit kinds, the ones the wide id functions serve, in `KINDS`' order.
pub const WIDE: [Wide; WIDE_COUNT] = {
  let mut wide = [nth_wide(0); WIDE_COUNT];
  let mut n = 1;
  while n < WIDE_COUNT {
    wide[n] = nth_wide(n);
    n += 1;
  }
  wide
};

/// The `n`th 128-bit kind of `KINDS` (built when compiling: `n` is below `WIDE_COUNT`).
const fn nth_wide(mut n: usize) -> Wide {
  let (mut at, at_wide) = (0, n);
  while at < KINDS.len() {
    if let Some(does) = &KINDS[at].wide {
      if n == 0 {
        let Some(shape) = KINDS[at].shape else {
          panic!("a 128-bit kind is made from a 64-bit shape")
        };
        return Wide {
          row: &KINDS[at],
          does,
          place: at_wide as u8,
          shape,
        };
      }
      n -= 1;
    }
    at += 1;
  }
  panic!("fewer 128-bit kinds than WIDE_COUNT")
}

/// A 128-bit kind: its row, what its ids do, and its place in `WIDE`. Each method is its row's
/// function.
#[derive(Debug, Clone, Copy)]
pub struct Wide {
  row: &'static Row,
  does: &'static Does,
  place: u8,
  /// Its row's shape, here too: in `WIDE`, a constant one load away, so that a loop over the
  /// kinds comparing shapes is unrolled into constants (through the row it was not).
  shape: Shape,
}

impl PartialEq for Wide {
  fn eq(&self, other: &Self) -> bool {
    self.place == other.place
  }
}

/// Runs `$body` with `$at`, a `const usize`, the place in `WIDE` of `$kind` (a `Wide`), so that
/// code generic over that place, which takes its kind as `Wide::at::<AT>`, is compiled once per
/// 128-bit kind with the kind's row and functions as constants: called directly and inlined.
/// One body given the kind at run time calls through its row (LLVM merges two bodies that
/// differ only in the kind into that): 11 ns a call more on the per-id path, side by side.
/// `$other` is for a place past the arms, which no `Wide` has (`ARMS` holds every kind). An arm
/// past `WIDE_COUNT` is never taken, and its constant guard drops it when compiled.
macro_rules! each_wide {
  ($kind:expr, |$at:ident| $body:expr, $other:expr) => {
    match $kind.place() {
      0 => {
        const $at: usize = 0;
        $body
      }
      1 if 1 < $crate::kinds::WIDE_COUNT => {
        const $at: usize = 1;
        $body
      }
      2 if 2 < $crate::kinds::WIDE_COUNT => {
        const $at: usize = 2;
        $body
      }
      3 if 3 < $crate::kinds::WIDE_COUNT => {
        const $at: usize = 3;
        $body
      }
      _ => $other,
    }
  };
}
/// The places `each_wide!` has an arm for: a kind past them would be made through its row, and
/// met as `$other`. A fifth 128-bit kind adds an arm there.
const ARMS: usize = 4;
const _: () = assert!(
  WIDE_COUNT <= ARMS,
  "each_wide! needs an arm for each 128-bit kind"
);
pub(crate) use each_wide;

impl Eq for Wide {}

impl Wide {
  /// Its place in `WIDE`.
  #[inline(always)]
  pub fn place(self) -> usize {
    usize::from(self.place)
  }

  /// The kind at place `AT` of `WIDE`, a constant (see `each_wide!`); `self` past them.
  #[inline(always)]
  pub fn at<const AT: usize>(self) -> Self {
    match WIDE.get(AT) {
      Some(&kind) => kind,
      None => self,
    }
  }

  /// Makes the 128-bit id of each of `ids` into `out` (16 bytes each), with `worker` and, where
  /// its row reads them, random bits `draw`n; compiled once per kind (see `each_wide!`).
  #[inline(always)]
  pub fn make_all<E>(
    self,
    out: &mut [u8],
    ids: impl Iterator<Item = u64>,
    worker: u64,
    draw: impl FnMut() -> Result<u64, E>,
  ) -> Result<(), E> {
    each_wide!(
      self,
      |AT| self.make_each::<AT, E>(out, ids, worker, draw),
      self.make_each::<{ usize::MAX }, E>(out, ids, worker, draw)
    )
  }

  /// As `make_all`, for the kind at place `AT` (a function per place: LLVM merged the places'
  /// loops when they differed only in the kind, and called its functions through the row).
  #[inline(always)]
  fn make_each<const AT: usize, E>(
    self,
    out: &mut [u8],
    ids: impl Iterator<Item = u64>,
    worker: u64,
    mut draw: impl FnMut() -> Result<u64, E>,
  ) -> Result<(), E> {
    let kind = self.at::<AT>();
    let draws = kind.row.random_bits > 0;
    for (slot, id) in out.chunks_exact_mut(16).zip(ids) {
      let bits = if draws { draw()? } else { 0 };
      slot.copy_from_slice(&kind.make(id, worker, bits));
    }
    Ok(())
  }

  /// Its row.
  #[inline(always)]
  pub fn row(self) -> &'static Row {
    self.row
  }

  /// Its kind.
  #[inline(always)]
  pub fn kind(self) -> Kind {
    self.row.kind
  }

  /// The 64-bit layout its ids are made from.
  #[inline(always)]
  pub fn shape(self) -> Shape {
    self.shape
  }

  /// The 128-bit id made from `id` (an id of the row's `shape`): a flake's of `worker`, a
  /// UUIDv7's with `random` bits (see the row's `worker` and `random` for which it reads).
  #[inline(always)]
  pub fn make(self, id: u64, worker: u64, random: u64) -> [u8; 16] {
    (self.does.make)(id, worker, random)
  }

  /// The text of the 128-bit id `id`: a UUID's canonical form, a flake's base 62.
  #[inline(always)]
  pub fn text(self, id: &[u8; 16]) -> Text {
    (self.does.text)(id)
  }

  /// The 128-bit id whose text form (`text`'s) is `text`.
  pub fn parse(self, text: &str) -> Option<[u8; 16]> {
    (self.does.parse)(text)
  }

  /// The text of `id` in `form`: its kind's own for `None`, else one of `text::WIDE_FORMS`
  /// (`None` for another).
  pub fn text_in(self, id: &[u8; 16], form: Option<Form>) -> Option<Text> {
    let value = u128::from_be_bytes(*id);
    match form {
      None => Some(self.text(id)),
      Some(Form::Base32) => Some(Text::of(
        &Form::Base32.write::<{ Form::Base32.width(u128::BITS) }>(value),
      )),
      Some(Form::Base62) => Some(Text::of(
        &Form::Base62.write::<{ Form::Base62.width(u128::BITS) }>(value),
      )),
      Some(Form::Decimal | Form::Hex) => None,
    }
  }

  /// Whether `id` is one of this kind's (a UUIDv7's version and variant).
  pub fn holds(self, id: &[u8; 16]) -> bool {
    (self.does.holds)(id)
  }

  /// Whether `text` has the form of this kind's text, whatever its value.
  pub fn has_form(self, text: &str) -> bool {
    (self.does.has_form)(text)
  }

  /// The 128-bit id `got` is, in any form its readers take (`bytes`: a Uint8Array's, when it
  /// is one); errors name it `id`.
  pub fn read(self, got: &Input, bytes: Option<&[u8]>) -> Result<[u8; 16], FlakeError> {
    (self.does.read)(got, bytes)
  }

  /// The parts of the 128-bit id `id`, one of this kind's.
  pub fn parts(self, id: &[u8; 16]) -> Parts {
    (self.does.parts)(id)
  }

  /// As `Kind::reworded`.
  pub fn reworded(self, err: FlakeError, own_clock: bool) -> FlakeError {
    self.kind().reworded(err, own_clock)
  }
}

impl Kind {
  /// Its row.
  #[inline(always)]
  pub fn row(self) -> &'static Row {
    &KINDS[self as usize]
  }

  /// `err`, met making an id of this kind, as its users read it: a 128-bit kind has no epoch
  /// and no callback to provide, so the 64-bit layouts' wording would mislead them. `own_clock`:
  /// the reading came from the `clock` option, not the system clock.
  pub fn reworded(self, err: FlakeError, own_clock: bool) -> FlakeError {
    let (maker, Some(shape)) = (self.row().maker, self.row().shape) else {
      return err;
    };
    match err {
      FlakeError::SequenceOverflow { wait_ms } => FlakeError::WideSequenceOverflow {
        maker,
        per_ms: shape.ids_per_unit(),
        wait_ms,
      },
      FlakeError::TimestampOverflow { delta, .. } => FlakeError::WidePastEnd {
        maker,
        clock: if own_clock {
          "the `clock` option"
        } else {
          "the system clock"
        },
        now: delta,
        last: shape.word().max_time().min(shape.max_time()),
        bits: u64::BITS - shape.word().time_shift(),
      },
      other => other,
    }
  }

  /// The kind JS names `name`.
  pub fn named(name: &str) -> Option<Self> {
    KINDS
      .iter()
      .find(|row| row.name == name)
      .map(|row| row.kind)
  }

  /// The 128-bit kind JS names `name`.
  pub fn wide_named(name: &str) -> Option<Wide> {
    Self::named(name)?.wide()
  }

  /// The kind as a 128-bit one, if it is.
  #[inline(always)]
  pub fn wide(self) -> Option<Wide> {
    WIDE.into_iter().find(|wide| wide.kind() == self)
  }

  /// The 128-bit kind made from ids of `shape`, if one is.
  #[inline(always)]
  pub fn wide_of(shape: Shape) -> Option<Wide> {
    WIDE.into_iter().find(|wide| wide.shape() == shape)
  }
}
