//! The id's layout, a value: a time field (units of `unit_ms` since the epoch) in the high bits,
//! then a node id and a sequence number in either order, 63 or 64 bits in all. flake-idgen's is
//! 42 | 10 | 12 (ms, the node id 5 datacenter + 5 worker bits); the presets are the other
//! schemes users come from.

pub mod decompose;

/// What comes right after the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
  /// Time | node | sequence: flake-idgen, Twitter, Discord, Instagram, snowcast.
  NodeSequence,
  /// Time | sequence | node: Hazelcast, sonyflake.
  SequenceNode,
}

/// Everything about an id's bits but its epoch. Generators of one shape and one node id share a
/// state whatever their epochs (as flake-idgen's generators of every epoch always have); two
/// shapes never share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
  pub time_bits: u8,
  pub unit_ms: u16,
  pub node_bits: u8,
  pub sequence_bits: u8,
  pub order: Order,
}

/// The limits a shape's fields are checked against.
pub const MAX_NODE_BITS: u8 = 16;
pub const MAX_SEQUENCE_BITS: u8 = 16;
pub const MAX_UNIT_MS: u16 = 1000;

/// Bits of the time a state word holds for a 1 ms unit: ms since 1970 until 2109. Coarser units
/// need fewer (`Word::of`), which leaves the room to the lead.
const STATE_TIME_BITS_MS: u32 = 42;
/// The most a generator may borrow ahead of the clock (`allowedFutureMs`), where the state word
/// has room: Hazelcast's default.
const MAX_BORROW_MS: u64 = 15_000;

impl Shape {
  /// flake-idgen's: 42 bits of ms | 10-bit node id | 12-bit sequence.
  pub const FLAKE_IDGEN: Self = Self {
    time_bits: 42,
    unit_ms: 1,
    node_bits: 10,
    sequence_bits: 12,
    order: Order::NodeSequence,
  };

  /// Whether a shape with these fields is one this build supports, and if not, which field is
  /// out of range and what it must be.
  pub fn check(self) -> Result<Self, (&'static str, &'static str)> {
    if self.node_bits > MAX_NODE_BITS {
      return Err(("nodeBits", "an integer from 0 to 16"));
    }
    if !(1..=MAX_SEQUENCE_BITS).contains(&self.sequence_bits) {
      return Err(("sequenceBits", "an integer from 1 to 16"));
    }
    if !(1..=MAX_UNIT_MS).contains(&self.unit_ms) {
      return Err(("timeUnitMs", "an integer number of ms from 1 to 1000"));
    }
    let total =
      u32::from(self.time_bits) + u32::from(self.node_bits) + u32::from(self.sequence_bits);
    if total != 63 && total != 64 {
      return Err((
        "timeBits",
        "an integer making timeBits + nodeBits + sequenceBits 63 or 64",
      ));
    }
    Ok(self)
  }

  /// Where the time starts.
  #[inline(always)]
  pub const fn time_shift(self) -> u32 {
    self.node_bits as u32 + self.sequence_bits as u32
  }

  #[inline(always)]
  const fn node_shift(self) -> u32 {
    match self.order {
      Order::NodeSequence => self.sequence_bits as u32,
      Order::SequenceNode => 0,
    }
  }

  #[inline(always)]
  const fn sequence_shift(self) -> u32 {
    match self.order {
      Order::NodeSequence => 0,
      Order::SequenceNode => self.node_bits as u32,
    }
  }

  /// How far apart consecutive sequence numbers of one time unit are as ids. Within a unit the
  /// sequence field lies in the low 32 bits (at most 16 bits, after at most 16 node bits), so
  /// adding `k * step` to an id's low 32 bits never carries: `native.js`'s runs rely on it.
  #[inline(always)]
  pub const fn step(self) -> u64 {
    1 << self.sequence_shift()
  }

  /// The largest time (units after the epoch) the time bits hold.
  #[inline(always)]
  pub const fn max_time(self) -> u64 {
    (1 << self.time_bits) - 1
  }

  /// The largest node id.
  pub const fn max_node(self) -> u16 {
    ((1u32 << self.node_bits) - 1) as u16
  }

  /// The largest sequence number.
  #[inline(always)]
  pub const fn max_sequence(self) -> u16 {
    ((1u32 << self.sequence_bits) - 1) as u16
  }

  /// How many ids one node id has per time unit.
  pub const fn ids_per_unit(self) -> u32 {
    1 << self.sequence_bits
  }

  /// The unit, in ms.
  #[inline(always)]
  pub const fn unit(self) -> u64 {
    self.unit_ms as u64
  }

  /// The id for a time (units after the epoch), a node id and a sequence number, each in range.
  #[inline(always)]
  pub const fn compose(self, time: u64, node: u16, sequence: u16) -> u64 {
    time << self.time_shift()
      | (node as u64) << self.node_shift()
      | (sequence as u64) << self.sequence_shift()
  }

  /// The (time, node id, sequence number) of `id`.
  pub const fn split(self, id: u64) -> (u64, u16, u16) {
    let node = (id >> self.node_shift()) & self.max_node() as u64;
    let sequence = (id >> self.sequence_shift()) & self.max_sequence() as u64;
    (id >> self.time_shift(), node as u16, sequence as u16)
  }

  /// The format of this shape's state words.
  #[inline(always)]
  pub const fn word(self) -> Word {
    Word::of(self.unit_ms, self.sequence_bits)
  }

  /// The largest `allowedFutureMs`: 15 s where the state word's lead has room for it, else 1 s,
  /// else what it has room for (whole units). flake-idgen's shape has room for 1,022 ms: 1 s.
  pub const fn max_allowed_future_ms(self) -> u64 {
    let room = self.word().max_lead() * self.unit();
    if room >= MAX_BORROW_MS {
      MAX_BORROW_MS
    } else if room >= 1000 {
      1000
    } else {
      room
    }
  }

  /// What records the shape where it must match: a lease namespace, a state file's name. Time,
  /// then the two other fields in their order: `42/10/12` for flake-idgen's (what namespaces
  /// recorded before layouts), `41/seq6/node16` for Hazelcast's, `39x10ms/seq8/node16` for
  /// sonyflake's.
  pub fn key(self) -> String {
    let time = match self.unit_ms {
      1 => self.time_bits.to_string(),
      unit => format!("{}x{unit}ms", self.time_bits),
    };
    match self.order {
      Order::NodeSequence => format!("{time}/{}/{}", self.node_bits, self.sequence_bits),
      Order::SequenceNode => format!("{time}/seq{}/node{}", self.sequence_bits, self.node_bits),
    }
  }

  /// The shape as 22 bits, for the scratch (see `js::protocol`): `unit_ms - 1 | node_bits << 10
  /// | sequence_bits << 15 | order << 20 | (64 bits in all) << 21`.
  pub const fn pack(self) -> u32 {
    let order = match self.order {
      Order::NodeSequence => 0,
      Order::SequenceNode => 1,
    };
    let total = self.time_bits as u32 + self.node_bits as u32 + self.sequence_bits as u32;
    (self.unit_ms as u32 - 1)
      | (self.node_bits as u32) << 10
      | (self.sequence_bits as u32) << 15
      | order << 20
      | ((total == 64) as u32) << 21
  }

  /// The shape `pack` made `packed` from (bits above 22 ignored); `None` for one it cannot have.
  pub fn unpack(packed: u32) -> Option<Self> {
    let node_bits = ((packed >> 10) & 0x1f) as u8;
    let sequence_bits = ((packed >> 15) & 0x1f) as u8;
    let total = 63 + ((packed >> 21) & 1) as u8;
    let shape = Self {
      time_bits: total.checked_sub(node_bits + sequence_bits)?,
      unit_ms: (packed & 0x3ff) as u16 + 1,
      node_bits,
      sequence_bits,
      order: if (packed >> 20) & 1 == 0 {
        Order::NodeSequence
      } else {
        Order::SequenceNode
      },
    };
    shape.check().ok()
  }
}

/// The format of a state word (see `sequencer`): `time << (lead + sequence) | lead << sequence
/// | sequence`, the time in units since its origin. The time has `42 - log2(unit)` bits (rounded
/// down), so it holds times until 2109 whatever the unit; the lead has what is left, at least 6
/// bits. flake-idgen's shape gives 42 | 10 | 12, the format of every state before layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word {
  pub sequence_bits: u32,
  pub lead_bits: u32,
}

impl Word {
  const fn of(unit_ms: u16, sequence_bits: u8) -> Self {
    let time_bits = STATE_TIME_BITS_MS - (15 - unit_ms.leading_zeros());
    Self {
      sequence_bits: sequence_bits as u32,
      lead_bits: u64::BITS - time_bits - sequence_bits as u32,
    }
  }

  /// Where the time starts.
  #[inline(always)]
  pub const fn time_shift(self) -> u32 {
    self.sequence_bits + self.lead_bits
  }

  /// The largest time a word holds.
  pub const fn max_time(self) -> u64 {
    u64::MAX >> self.time_shift()
  }

  /// The mask of the sequence field.
  #[inline(always)]
  pub const fn sequence_mask(self) -> u64 {
    (1 << self.sequence_bits) - 1
  }

  /// The mask of the lead field, once shifted down.
  #[inline(always)]
  pub const fn lead_mask(self) -> u64 {
    (1 << self.lead_bits) - 1
  }

  /// The largest lead (units): below the field's all ones on purpose, so that no word a
  /// sequencer writes is all ones, which stays `NOTHING_ISSUED`.
  pub const fn max_lead(self) -> u64 {
    self.lead_mask() - 1
  }
}

/// A named layout: a shape, the epoch its users count from, and what its users call the parts
/// of an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
  FlakeIdgen,
  Twitter,
  Discord,
  Instagram,
  Snowcast,
  Hazelcast,
  Sonyflake,
}

/// What a preset is: its row of `PRESETS`.
#[derive(Debug)]
pub struct PresetRow {
  pub preset: Preset,
  /// What the `layout` option calls it.
  pub name: &'static str,
  pub shape: Shape,
  /// The epoch its users count from, ms since 1970.
  pub epoch: u64,
  /// The names of the node id's two 5-bit parts, high first, for the schemes that split it.
  pub parts: Option<[&'static str; 2]>,
  /// What its users call the sequence number and the node id, where not `sequence` and `id`.
  pub aliases: (Option<&'static str>, Option<&'static str>),
}

/// The shape of `time_bits` of `unit_ms`, then `node_bits` and `sequence_bits` in `order`.
const fn shape(
  time_bits: u8,
  unit_ms: u16,
  node_bits: u8,
  sequence_bits: u8,
  order: Order,
) -> Shape {
  Shape {
    time_bits,
    unit_ms,
    node_bits,
    sequence_bits,
    order,
  }
}

/// Every preset, in `Preset`'s order. The epochs: Twitter's, Discord's, Instagram's (its
/// engineering blog's), snowcast's worked example's (2014-01-01), Hazelcast's (2018-01-01),
/// sonyflake's (2014-09-01).
pub const PRESETS: [PresetRow; 7] = [
  PresetRow {
    preset: Preset::FlakeIdgen,
    name: "flake-idgen",
    shape: Shape::FLAKE_IDGEN,
    epoch: 0,
    parts: Some(["datacenter", "worker"]),
    aliases: (None, None),
  },
  PresetRow {
    preset: Preset::Twitter,
    name: "twitter",
    shape: shape(41, 1, 10, 12, Order::NodeSequence),
    epoch: 1_288_834_974_657,
    parts: Some(["datacenter", "worker"]),
    aliases: (None, None),
  },
  PresetRow {
    preset: Preset::Discord,
    name: "discord",
    shape: Shape::FLAKE_IDGEN,
    epoch: 1_420_070_400_000,
    parts: Some(["worker", "process"]),
    aliases: (Some("increment"), None),
  },
  PresetRow {
    preset: Preset::Instagram,
    name: "instagram",
    shape: shape(41, 1, 13, 10, Order::NodeSequence),
    epoch: 1_314_220_021_721,
    parts: None,
    aliases: (None, Some("shardId")),
  },
  PresetRow {
    preset: Preset::Snowcast,
    name: "snowcast",
    shape: shape(41, 1, 13, 10, Order::NodeSequence),
    epoch: 1_388_534_400_000,
    parts: None,
    aliases: (None, None),
  },
  PresetRow {
    preset: Preset::Hazelcast,
    name: "hazelcast",
    shape: shape(41, 1, 16, 6, Order::SequenceNode),
    epoch: 1_514_764_800_000,
    parts: None,
    aliases: (None, None),
  },
  PresetRow {
    preset: Preset::Sonyflake,
    name: "sonyflake",
    shape: shape(39, 10, 16, 8, Order::SequenceNode),
    epoch: 1_409_529_600_000,
    parts: None,
    aliases: (None, Some("machineId")),
  },
];

impl Preset {
  /// Every preset, in `PRESETS`' order.
  pub const ALL: [Self; PRESETS.len()] = {
    let mut all = [Self::FlakeIdgen; PRESETS.len()];
    let mut i = 0;
    while i < PRESETS.len() {
      all[i] = PRESETS[i].preset;
      i += 1;
    }
    all
  };

  /// Its row.
  pub const fn row(self) -> &'static PresetRow {
    &PRESETS[self as usize]
  }

  /// What the `layout` option calls it.
  pub const fn name(self) -> &'static str {
    self.row().name
  }

  /// Its index in `ALL`.
  pub const fn index(self) -> usize {
    // The variants are declared in `PRESETS`' order.
    self as usize
  }

  pub fn from_name(name: &str) -> Option<Self> {
    PRESETS
      .iter()
      .find(|row| row.name == name)
      .map(|row| row.preset)
  }

  pub const fn shape(self) -> Shape {
    self.row().shape
  }

  /// The epoch its users count from, ms since 1970 (see `PRESETS`).
  pub const fn epoch(self) -> u64 {
    self.row().epoch
  }

  /// The names of the node id's two 5-bit parts, high first, for the schemes that split it.
  pub const fn parts(self) -> Option<[&'static str; 2]> {
    self.row().parts
  }

  /// What its users call the sequence number and the node id, where not `sequence` and `id`.
  pub const fn aliases(self) -> (Option<&'static str>, Option<&'static str>) {
    self.row().aliases
  }
}

// `Preset::row` is `PRESETS`' entry at the variant's number: it lists the variants in their
// order.
const _: () = {
  let mut i = 0;
  while i < PRESETS.len() {
    assert!(PRESETS[i].preset as usize == i);
    i += 1;
  }
};

/// Bits of each part of a node id that has two.
pub const PART_BITS: u32 = 5;
/// The largest part.
pub const MAX_PART: u8 = (1 << PART_BITS) - 1;

/// The node id made of two parts, high first.
pub const fn node_id(high: u8, low: u8) -> u16 {
  (high as u16) << PART_BITS | low as u16
}

/// A layout: a shape, its epoch, and the preset it is, if one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
  pub shape: Shape,
  pub epoch: u64,
  pub preset: Option<Preset>,
}

impl Layout {
  pub const DEFAULT: Self = Self::preset(Preset::FlakeIdgen);

  pub const fn preset(preset: Preset) -> Self {
    Self {
      shape: preset.shape(),
      epoch: preset.epoch(),
      preset: Some(preset),
    }
  }

  /// The name the resolved layout carries: its preset's, or `custom`.
  pub const fn name(&self) -> &'static str {
    match self.preset {
      Some(preset) => preset.name(),
      None => "custom",
    }
  }

  /// The names of its node id's parts, if it splits it.
  pub const fn parts(&self) -> Option<[&'static str; 2]> {
    match self.preset {
      Some(preset) => preset.parts(),
      None => None,
    }
  }

  /// The time (units after the epoch) of a reading of `ms` since 1970 (at or after the epoch):
  /// units are counted from 1970, as sonyflake counts them, so an epoch inside a unit starts
  /// the count at that unit.
  #[inline(always)]
  pub const fn time_of(&self, ms: u64) -> u64 {
    let unit = self.shape.unit();
    if unit == 1 {
      ms - self.epoch
    } else {
      ms / unit - self.epoch / unit
    }
  }

  /// The ms since 1970 a time (units after the epoch) starts at.
  pub const fn ms_of(&self, time: u64) -> u64 {
    let unit = self.shape.unit();
    time.saturating_add(self.epoch / unit).saturating_mul(unit)
  }

  /// The last ms since 1970 whose time the time bits hold.
  pub const fn last_ms(&self) -> u64 {
    self
      .ms_of(self.shape.max_time())
      .saturating_add(self.shape.unit() - 1)
  }

  /// The last ms since 1970 at which ids can be issued: where the time bits end, or where a
  /// state word's time does, counted from the epoch (139 years or more), whichever comes first.
  /// A generator on the system clock also stops where the word's time counted from 1970 ends
  /// (2109 for a 1 ms unit, 2144 for sonyflake's 10 ms): its state is shared by every epoch.
  pub const fn end_ms(&self) -> u64 {
    let bits = self.last_ms();
    let word = self
      .ms_of(self.shape.word().max_time())
      .saturating_add(self.shape.unit() - 1);
    if bits < word {
      bits
    } else {
      word
    }
  }
}
