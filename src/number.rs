//! JS numbers as counts and times: whether one is a whole number, the one test every check of
//! an option, an argument or a scratch field goes through.

/// Largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// `n` as an integer, if it is a whole number from 0 to `MAX_SAFE_INTEGER` (`-0` is 0).
#[inline(always)]
pub fn whole(n: f64) -> Option<u64> {
  // A round trip through u64, not `n.fract() == 0.0`: NaN, negatives and fractions do not
  // survive it, and `fract()` is a call into libm on x86-64's baseline, while this runs on the
  // per-id path (the epoch of a call whose settings are in the scratch).
  let integer = n as u64;
  (n <= MAX_SAFE_INTEGER && integer as f64 == n).then_some(integer)
}

/// `n` with its fraction dropped, if it is from 0 to `MAX_SAFE_INTEGER`: for clock readings,
/// so that a clock built on `performance.timeOrigin + performance.now()` works as it would
/// with `Date.now()`.
#[inline(always)]
pub fn whole_part(n: f64) -> Option<u64> {
  (0.0..=MAX_SAFE_INTEGER).contains(&n).then_some(n as u64)
}
