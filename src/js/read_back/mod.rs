//! Ids and layouts read back for JS: 64-bit ids into their parts (`decompose`), a layout
//! resolved (`layout`), and every 128-bit kind's ids read back, written out and described
//! (`kinds`).

mod decompose;
mod kinds;
pub(crate) mod layout;
