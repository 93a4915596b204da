//! Trial parses in a forked child, because LLVM's bitcode reader is not hardened.
//!
//! LLVM 14 crashes (SIGSEGV) on some malformed bitcode, and a crash cannot be caught
//! in-process. So untrusted bytes are first parsed and converted in a `fork`ed child that
//! reports back through a pipe; only bytes the child handled without crashing are parsed in
//! the caller's process (the same LLVM on the same bytes gives the same result). A child
//! that crashes or runs past [`TRIAL_TIMEOUT`] becomes a typed error. The same isolation
//! idea as a browser's out-of-process parsers; the cost is a `fork` per load.
//!
//! All LLVM work holds [`LLVM_LOCK`], so no other thread is inside LLVM (holding one of its
//! internal locks) when we fork; glibc's `malloc` is fork-safe.

use super::super::error::{Error, Result};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub(super) static LLVM_LOCK: Mutex<()> = Mutex::new(());

pub(super) const TRIAL_TIMEOUT: Duration = Duration::from_secs(20);

/// Address-space cap for a trial child: a corrupt size field makes LLVM try huge
/// allocations, which should fail fast rather than push the machine into swap.
const TRIAL_MEMORY_LIMIT: u64 = 8 << 30;

/// The report pipe, in a trial child; -1 elsewhere.
static CHILD_PIPE: AtomicI32 = AtomicI32::new(-1);

fn write_all(fd: i32, bytes: &[u8]) {
    let mut off = 0;
    while off < bytes.len() {
        // SAFETY: writing from a live slice to a pipe we own.
        let n = unsafe { libc::write(fd, bytes[off..].as_ptr() as *const libc::c_void, bytes.len() - off) };
        if n <= 0 {
            break;
        }
        off += n as usize;
    }
}

/// Called from LLVM's fatal-error hook: in a trial child, report and end the child.
pub(super) fn report_fatal_in_child(msg: &str) {
    let fd = CHILD_PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        let text = format!("LLVM fatal error: {msg}");
        write_all(fd, &text.as_bytes()[..text.len().min(8192)]);
        unsafe { libc::_exit(1) };
    }
}

/// Outcome of a trial run.
pub(super) enum Trial {
    /// The child parsed and converted the input: parsing in-process is safe.
    Clean,
    /// The child got a typed error: this is its message.
    Failed(String),
}

/// Run `work` in a forked child. `work` returns `Err(message)` for a typed error.
#[cfg(unix)]
pub(super) fn trial(work: impl FnOnce() -> std::result::Result<(), String>) -> Result<Trial> {
    let mut fds = [0i32; 2];
    // SAFETY: plain POSIX calls on fds we own.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(Error::Io(std::io::Error::last_os_error()));
    }
    let (read_fd, write_fd) = (fds[0], fds[1]);
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        unsafe {
            libc::close(read_fd);
            libc::close(write_fd);
        }
        return Err(Error::Io(std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // Child: do the work, report, and leave without running any destructors or
        // atexit handlers of the parent's program.
        unsafe { libc::close(read_fd) };
        CHILD_PIPE.store(write_fd, Ordering::SeqCst);
        let limit = libc::rlimit { rlim_cur: TRIAL_MEMORY_LIMIT, rlim_max: TRIAL_MEMORY_LIMIT };
        unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        let (code, msg) = match outcome {
            Ok(Ok(())) => (0, String::new()),
            Ok(Err(m)) => (1, m),
            Err(_) => (1, "internal error while reading the module".to_string()),
        };
        write_all(write_fd, &msg.as_bytes()[..msg.len().min(8192)]);
        unsafe { libc::_exit(code) };
    }
    unsafe { libc::close(write_fd) };
    let result = collect(pid, read_fd);
    unsafe { libc::close(read_fd) };
    result
}

#[cfg(unix)]
fn collect(pid: libc::pid_t, fd: i32) -> Result<Trial> {
    let start = Instant::now();
    let mut msg = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = TRIAL_TIMEOUT.saturating_sub(start.elapsed());
        if left.is_zero() {
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            return Err(Error::Llvm(format!(
                "LLVM did not finish reading the input within {} s",
                TRIAL_TIMEOUT.as_secs()
            )));
        }
        let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        let r = unsafe { libc::poll(&mut p, 1, left.as_millis().min(i32::MAX as u128) as i32) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Error::Io(e));
        }
        if r == 0 {
            continue;
        }
        let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
        if n > 0 {
            msg.extend_from_slice(&buf[..n as usize]);
            continue;
        }
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break; // EOF: the child exited (or crashed).
    }
    let mut status = 0;
    loop {
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Err(Error::Io(std::io::Error::last_os_error()));
        }
    }
    if libc::WIFSIGNALED(status) {
        return Err(Error::Llvm(format!(
            "LLVM crashed reading the input (signal {}); the input is malformed",
            libc::WTERMSIG(status)
        )));
    }
    match libc::WEXITSTATUS(status) {
        0 => Ok(Trial::Clean),
        _ => Ok(Trial::Failed(String::from_utf8_lossy(&msg).into_owned())),
    }
}
