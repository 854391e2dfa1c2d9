//! A mapped state file truncated under a running process (`: > file`, a short file copied over
//! it) must not kill the process: touching a page past the file's new end raises SIGBUS. The
//! handler installed here recognises a fault inside one of our mappings, marks that state file
//! lost, and puts pages of spent words where the mapping was (see `HostFile::spent_page`), so the
//! faulting access, repeated on return, reads a state that refuses every id; the generator then
//! reports the loss (`ERR_FLAKE_STATE_LOST`). Every other fault goes to the handler that was
//! there before, or, if there was none, ends the process as it would have.
//!
//! Linux only: the replacement is one `mremap`, so no thread ever sees the pages half-filled.
//! Everything the handler does is async-signal-safe: atomics, `mmap`, `mremap`, `sigaction`.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use super::file::HostFile;

/// The mappings watched, in chunks that are added as needed and never freed, so the handler
/// walks them with loads alone; a released mapping's slot is taken by the next one.
struct Chunk {
  slots: [AtomicPtr<HostFile>; CHUNK],
  next: AtomicPtr<Chunk>,
}

const CHUNK: usize = 64;

static FIRST: Chunk = Chunk::new();

impl Chunk {
  const fn new() -> Self {
    Self {
      slots: [const { AtomicPtr::new(ptr::null_mut()) }; CHUNK],
      next: AtomicPtr::new(ptr::null_mut()),
    }
  }

  /// Every chunk, from the first.
  fn all() -> impl Iterator<Item = &'static Chunk> {
    // SAFETY: chunks are leaked, never freed.
    std::iter::successors(Some(&FIRST), |chunk| unsafe {
      chunk.next.load(Ordering::Acquire).as_ref()
    })
  }
}

// Where the handler is in replacing a mapping's pages (see `Pages`).
const INTACT: u8 = 0;
const REPLACING: u8 = 1;
const REPLACED: u8 = 2;

/// Where the handler is in replacing a mapping's pages: `INTACT`, `REPLACING`, `REPLACED`. One
/// per mapping (`HostFile::pages`).
#[derive(Debug)]
pub struct Pages(AtomicU8);

impl Pages {
  /// A mapping's, before any fault.
  pub const fn new() -> Self {
    Self(AtomicU8::new(INTACT))
  }

  /// Whether this thread is the one to replace the pages.
  fn begin_replacing(&self) -> bool {
    self
      .0
      .compare_exchange(INTACT, REPLACING, Ordering::AcqRel, Ordering::Acquire)
      .is_ok()
  }

  /// The pages are the file's again, after a replacement that could not be done.
  fn set_intact(&self) {
    self.0.store(INTACT, Ordering::Release);
  }

  /// The spent pages are in place.
  fn set_replaced(&self) {
    self.0.store(REPLACED, Ordering::Release);
  }

  /// Whether the spent pages are in place.
  fn replaced(&self) -> bool {
    self.0.load(Ordering::Acquire) == REPLACED
  }

  /// Whether this thread is the one to replace the pages again (the handler's anonymous
  /// copy by the shared one, on release).
  fn begin_again(&self) -> bool {
    self
      .0
      .compare_exchange(REPLACED, REPLACING, Ordering::AcqRel, Ordering::Acquire)
      .is_ok()
  }
}

/// The SIGBUS action in place before ours.
struct Previous(libc::sigaction);
// SAFETY: plain data (a handler address, a mask, flags), only read after it is set.
unsafe impl Sync for Previous {}
unsafe impl Send for Previous {}

static PREVIOUS: OnceLock<Previous> = OnceLock::new();
static INSTALLED: Mutex<bool> = Mutex::new(false);

/// Watches `file`'s mapping for faults from here on; installs the handler on first use.
/// Returns the slot to give back (`release`) once the mapping is no longer the file's.
pub fn watch(file: &'static HostFile) -> Result<&'static AtomicPtr<HostFile>, String> {
  install()?;
  let file = ptr::from_ref(file).cast_mut();
  let mut last = &FIRST;
  for chunk in Chunk::all() {
    for slot in &chunk.slots {
      let taken = slot.compare_exchange(ptr::null_mut(), file, Ordering::AcqRel, Ordering::Acquire);
      if taken.is_ok() {
        return Ok(slot);
      }
    }
    last = chunk;
  }
  // Every slot is taken: a chunk more, linked after the last (or after whichever chunk
  // another thread linked there first).
  let chunk: &'static Chunk = Box::leak(Box::new(Chunk::new()));
  chunk.slots[0].store(file, Ordering::Release);
  let mut at = last;
  while let Err(next) = at.next.compare_exchange(
    ptr::null_mut(),
    ptr::from_ref(chunk).cast_mut(),
    Ordering::AcqRel,
    Ordering::Acquire,
  ) {
    // SAFETY: a chunk, leaked.
    at = unsafe { &*next };
  }
  Ok(&chunk.slots[0])
}

/// Puts pages of spent words where `file`'s mapping was, in one step, so that it no longer holds
/// the file (nor its lock, which goes with the open file a mapping keeps), and no longer faults;
/// then gives back its slot. The pages are one copy per format, shared by every mapping
/// released: a lost file costs its address range and nothing else. False if they cannot be put
/// there (the mapping stays the file's, watched).
pub fn release(file: &HostFile, slot: &AtomicPtr<HostFile>) -> bool {
  let (start, len) = file.range();
  // A fault being handled meanwhile finishes first; one after finds the pages in place.
  let was_replaced = loop {
    if file.pages().begin_replacing() {
      break false;
    }
    if file.pages().replaced() && file.pages().begin_again() {
      break true;
    }
    std::hint::spin_loop();
  };
  let replaced = spent_pages(file, len).is_some_and(|fd| {
    let flags = libc::MAP_PRIVATE | libc::MAP_FIXED;
    let protection = libc::PROT_READ | libc::PROT_WRITE;
    // SAFETY: maps over our own mapping's range only, from the start of a file of `len` bytes.
    let at = unsafe { libc::mmap(start as *mut c_void, len, protection, flags, fd, 0) };
    at != libc::MAP_FAILED
  });
  if replaced || was_replaced {
    file.pages().set_replaced();
  } else {
    // Still the file's pages: a truncation must still be handled, not taken as replaced (the
    // faulting access would then repeat for ever).
    file.pages().set_intact();
  }
  if replaced {
    slot.store(ptr::null_mut(), Ordering::Release);
  }
  replaced
}

/// A memory file of `len` bytes holding the spent words of `file`'s format: one per format
/// and size, made on first use and kept.
fn spent_pages(file: &HostFile, len: usize) -> Option<libc::c_int> {
  static SPENT: Mutex<Vec<((u64, usize), libc::c_int)>> = Mutex::new(Vec::new());
  let key = (file.spent_word(), len);
  let mut made = SPENT
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner());
  if let Some((_, fd)) = made.iter().find(|(made, _)| *made == key) {
    return Some(*fd);
  }
  // By its system call: glibc has no memfd_create before 2.27, and the Linux binaries are
  // linked against 2.17 (a kernel without it answers ENOSYS, and the pages are not marked).
  // SAFETY: a NUL-terminated name and flags.
  let fd = unsafe {
    libc::syscall(
      libc::SYS_memfd_create,
      c"flake-idgen-spent".as_ptr(),
      libc::MFD_CLOEXEC,
    )
  } as libc::c_int;
  if fd < 0 {
    return None;
  }
  let mut bytes = vec![0; len];
  file.spent_page(&mut bytes);
  // SAFETY: a descriptor of ours, and `len` bytes to write.
  let written = unsafe { libc::pwrite(fd, bytes.as_ptr().cast(), len, 0) };
  if written != len as isize {
    // SAFETY: our descriptor, not shared.
    unsafe { libc::close(fd) };
    return None;
  }
  made.push((key, fd));
  Some(fd)
}

fn install() -> Result<(), String> {
  let mut installed = INSTALLED
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner());
  if *installed {
    return Ok(());
  }
  // SAFETY: plain data, every field set below or left zero (an empty mask, no restorer).
  let mut action = unsafe { std::mem::zeroed::<libc::sigaction>() };
  action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
  action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
  // SAFETY: as above.
  let mut previous = unsafe { std::mem::zeroed::<libc::sigaction>() };
  // SAFETY: valid actions; the handler is async-signal-safe (see the module's doc).
  if unsafe { libc::sigaction(libc::SIGBUS, &action, &mut previous) } < 0 {
    return Err(format!(
      "cannot install a SIGBUS handler: {}",
      std::io::Error::last_os_error()
    ));
  }
  let _ = PREVIOUS.set(Previous(previous));
  *installed = true;
  Ok(())
}

extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
  // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
  let address = unsafe { (*info).si_addr() } as usize;
  'found: for chunk in Chunk::all() {
    for slot in &chunk.slots {
      // SAFETY: only leaked, never freed, `HostFile`s are stored.
      let Some(file) = (unsafe { slot.load(Ordering::Acquire).as_ref() }) else {
        continue;
      };
      let (start, len) = file.range();
      if (start..start + len).contains(&address) {
        if replace(file, start, len) {
          return;
        }
        break 'found;
      }
    }
  }
  // SAFETY: as the kernel called us.
  unsafe { chain(signal, info, context) }
}

/// Puts spent words where `file`'s mapping was; false if that cannot be done.
fn replace(file: &HostFile, start: usize, len: usize) -> bool {
  file.mark_truncated();
  // One thread replaces; one faulting meanwhile waits for it, then repeats its access.
  if !file.pages().begin_replacing() {
    while !file.pages().replaced() {
      std::hint::spin_loop();
    }
    return true;
  }
  let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
  let protection = libc::PROT_READ | libc::PROT_WRITE;
  // SAFETY: a fresh anonymous mapping, ours alone.
  let page = unsafe { libc::mmap(ptr::null_mut(), len, protection, flags, -1, 0) };
  if page == libc::MAP_FAILED {
    return false;
  }
  // SAFETY: `len` writable bytes just mapped.
  file.spent_page(unsafe { std::slice::from_raw_parts_mut(page.cast::<u8>(), len) });
  let moved = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED;
  // SAFETY: moves our anonymous pages over the range of our own mapping, in one step.
  let target = start as *mut c_void;
  if unsafe { libc::mremap(page, len, len, moved, target) } == libc::MAP_FAILED {
    return false;
  }
  file.pages().set_replaced();
  true
}

/// Hands a fault that is not ours to the handler before ours; with none (or "ignore"), puts the
/// default action back, so the fault, repeated on return, ends the process as it would have.
///
/// # Safety
/// Called from the signal handler only, with its arguments.
unsafe fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
  if let Some(Previous(previous)) = PREVIOUS.get() {
    let handler = previous.sa_sigaction;
    if handler != libc::SIG_DFL && handler != libc::SIG_IGN {
      if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: an SA_SIGINFO handler has this signature.
        let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
          unsafe { std::mem::transmute(handler) };
        handler(signal, info, context);
      } else {
        // SAFETY: a plain handler has this signature.
        let handler: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
        handler(signal);
      }
      return;
    }
  }
  // SAFETY: plain data: the default action, an empty mask.
  let mut default = unsafe { std::mem::zeroed::<libc::sigaction>() };
  default.sa_sigaction = libc::SIG_DFL;
  // SAFETY: a valid action.
  unsafe { libc::sigaction(libc::SIGBUS, &default, ptr::null_mut()) };
}
