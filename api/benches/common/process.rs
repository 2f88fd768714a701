//! What a process has used, read from `/proc`: CPU time, memory, reads.

use std::time::Duration;

/// Linux reports CPU time in ticks of USER_HZ, 100 a second.
pub const TICK: Duration = Duration::from_millis(10);

/// User and system time of a process from its `/proc/<pid>/stat`; none
/// when it is gone or is not `command`.
pub fn process_cpu(pid: &str, command: Option<&str>) -> Option<Duration> {
    process_times(pid, command).map(|(user, system)| user + system)
}

/// User time and system time of a process, as [`process_cpu`] reads them.
pub fn process_times(pid: &str, command: Option<&str>) -> Option<(Duration, Duration)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (head, rest) = stat.rsplit_once(')')?;
    if command.is_some_and(|c| !head.ends_with(&format!("({c}"))) {
        return None;
    }
    // After the command: state, then utime and stime are the 12th and 13th.
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<u32>().ok();
    Some((TICK * ticks(11)?, TICK * ticks(12)?))
}

/// The CPU time of process `pid` (`self` for this one) so far; zero when
/// it is gone.
pub fn cpu_time(pid: &str) -> Duration {
    process_cpu(pid, None).unwrap_or_default()
}

/// The number after `name` (such as `VmHWM:` or `syscr:`) in
/// `/proc/<pid>/<file>`; zero when the process or the field is gone.
pub fn field(pid: &str, file: &str, name: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/{file}"))
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A field of `/proc/<pid>/status` given in kB (`VmHWM:`, `VmRSS:`), in MiB.
pub fn status_mib(pid: u32, name: &str) -> f64 {
    field(&pid.to_string(), "status", name) as f64 / 1024.0
}

/// Keeps the calling thread (and the threads and processes it starts
/// after) on CPU `cpu` alone: benchmarks that stand two machines' work on
/// this machine's two CPUs.
#[allow(unsafe_code)] // A system call on this thread: see SAFETY.
pub fn pin_to_cpu(cpu: usize) -> std::io::Result<()> {
    // SAFETY: a cpu_set_t zeroed is empty, CPU_SET stays within it for any
    // CPU under CPU_SETSIZE, and sched_setaffinity only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        match libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    }
}
