//! What each JS thread (the main thread or a worker: one N-API env each) holds: its generators
//! by slot and the scratch its id functions write into. Instance data of the env, so it lives
//! exactly as long as the env, and the id functions, created with a pointer to it, never
//! outlive it.

use std::cell::RefCell;

use napi::{Env, Result};

use super::protocol::Scratch;
use crate::slots::Slots;

pub(crate) struct Thread {
  /// Borrowed only for the length of a native call that calls no JS: the user's clock is read
  /// before a call, or with the generator cloned out.
  pub slots: RefCell<Slots>,
  pub scratch: Scratch,
}

impl Thread {
  /// The env's, made on first use.
  pub fn of(env: &Env) -> Result<&'static Thread> {
    if let Some(thread) = env.get_instance_data::<Thread>()? {
      return Ok(thread);
    }
    let thread = Thread {
      slots: RefCell::default(),
      scratch: Scratch::new(env)?,
    };
    // The scratch's reference is released with the env; nothing to do when this goes.
    env.set_instance_data(thread, (), |_| {})?;
    Ok(
      env
        .get_instance_data::<Thread>()?
        .expect("instance data was just set"),
    )
  }
}
