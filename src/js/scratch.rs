//! One Buffer per JS environment (main thread or worker) that the id functions write into and
//! JS copies from: one id big-endian at offset 0 and in the platform's byte order at 8, or a
//! run of up to a millisecond's ids big-endian from offset 0. Created on the native side once, so its memory never moves, and
//! held by a strong reference in the env's instance data, so it lives as long as the env does.

use std::ptr;

use napi::{check_status, sys, Env, Result};

/// The most ids of one millisecond (12 sequence bits).
pub(crate) const RUN_IDS: usize = 4096;

pub(crate) struct Scratch {
  pub bytes: *mut u8,
  buffer: sys::napi_ref,
}

impl Scratch {
  /// The env's scratch, created on first use.
  pub fn of(env: &Env) -> Result<&'static Scratch> {
    if let Some(scratch) = env.get_instance_data::<Scratch>()? {
      return Ok(scratch);
    }
    let (mut bytes, mut buffer, mut reference) =
      (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    check_status!(unsafe {
      sys::napi_create_buffer(env.raw(), RUN_IDS * 8, &mut bytes, &mut buffer)
    })?;
    check_status!(unsafe { sys::napi_create_reference(env.raw(), buffer, 1, &mut reference) })?;
    // The reference is released with the env; nothing to do when the instance data goes.
    env.set_instance_data(
      Scratch {
        bytes: bytes.cast(),
        buffer: reference,
      },
      (),
      |_| {},
    )?;
    Ok(
      env
        .get_instance_data::<Scratch>()?
        .expect("instance data was just set"),
    )
  }

  /// The Buffer itself, for JS to read ids from.
  pub fn buffer(&self, env: &Env) -> Result<sys::napi_value> {
    let mut buffer = ptr::null_mut();
    check_status!(unsafe { sys::napi_get_reference_value(env.raw(), self.buffer, &mut buffer) })?;
    Ok(buffer)
  }
}
