//! TCP lines: the same [`Duplex`] over a socket, so that a client (and later the IP
//! referee) speaks the protocol over a network exactly as over a serial port.

use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use super::duplex::{Duplex, READ_TIMEOUT};

/// How long a connection may be idle before TCP asks the other end whether it is still
/// there ([`keep_alive`]).
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
/// The time between two of those probes.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(2);
/// The probes unanswered after which the connection is given up.
pub const KEEPALIVE_PROBES: u32 = 5;
/// How long data sent may stay unacknowledged before the connection is given up (Linux).
pub const UNACKNOWLEDGED: Duration = Duration::from_secs(20);

/// Turns on TCP keepalive for `stream` (and, on Linux, a limit on unacknowledged data):
/// a connection whose other end is gone without a word (a network down, a machine off)
/// ends within about 20 s of silence instead of staying open for ever, so that a
/// player's place is not held by a dead connection and a client learns that it must
/// connect again.
///
/// # Errors
///
/// The system's error when the socket refuses the options.
pub fn keep_alive(stream: &TcpStream) -> io::Result<()> {
    let socket = socket2::SockRef::from(stream);
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL);
    #[cfg(not(windows))]
    let keepalive = keepalive.with_retries(KEEPALIVE_PROBES);
    socket.set_tcp_keepalive(&keepalive)?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    socket.set_tcp_user_timeout(Some(UNACKNOWLEDGED))?;
    Ok(())
}

/// Connects to `addr` (`host:port`).
///
/// # Errors
///
/// Returns the system's error when the address does not resolve or nobody answers.
pub fn connect(addr: &str) -> io::Result<Duplex> {
    let mut last = None;
    for target in addr.to_socket_addrs()? {
        match TcpStream::connect(target) {
            Ok(stream) => return duplex(stream),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        io::Error::new(io::ErrorKind::NotFound, "the address resolves to nothing")
    }))
}

/// Both halves of a connected socket. Lines go out at once (no Nagle delay); reads
/// time out every [`READ_TIMEOUT`] so the reader can look up; a dead peer is found by
/// [`keep_alive`].
///
/// # Errors
///
/// Returns the system's error when the socket cannot be set up.
pub fn duplex(stream: TcpStream) -> io::Result<Duplex> {
    stream.set_nodelay(true)?;
    keep_alive(&stream)?;
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let reader = stream.try_clone()?;
    Ok(Duplex {
        reader: Box::new(reader),
        writer: Box::new(stream),
    })
}

/// Asks the system to note when each packet of `stream` arrives (`SO_TIMESTAMPNS`,
/// Linux), for [`recv_stamped`]. Elsewhere it does nothing.
///
/// # Errors
///
/// The system's error when the socket refuses the option.
pub fn stamp_arrivals(stream: &TcpStream) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let on: libc::c_int = 1;
        // SAFETY: setsockopt reads `on`, an int that outlives the call, of the size
        // given; an fd that is not a socket gives an error.
        let rc = unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_TIMESTAMPNS,
                std::ptr::from_ref(&on).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = stream;
    Ok(())
}

/// Reads what `stream` has into `buf` without waiting, and the moment its last byte
/// arrived at this machine: the system's own receive time where [`stamp_arrivals`]
/// asked for it (Linux), so that a line that waited in the socket's buffer while the
/// reader was busy is stamped when it came, not when it was read; else the moment of
/// the read. Returns the bytes read (0: the connection's end) and that moment.
///
/// # Errors
///
/// The system's error (`WouldBlock` when there is nothing yet).
pub fn recv_stamped(stream: &TcpStream, buf: &mut [u8]) -> io::Result<(usize, Instant)> {
    #[cfg(target_os = "linux")]
    {
        recv_stamped_linux(stream, buf)
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::io::Read;
        let n = (&*stream).read(buf)?;
        Ok((n, Instant::now()))
    }
}

/// How far back a receive time may put a line's stamp: a system clock set back or
/// forward between the packet's arrival and its read is not believed beyond this (a
/// busy referee reads a connection within milliseconds).
pub const ARRIVAL_LIMIT: Duration = Duration::from_secs(1);

#[cfg(target_os = "linux")]
fn recv_stamped_linux(stream: &TcpStream, buf: &mut [u8]) -> io::Result<(usize, Instant)> {
    use std::os::fd::AsRawFd;
    // Room for one control message holding a timespec, aligned as cmsghdr wants.
    let mut control = [0u64; 8];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: an all-zero msghdr is a valid empty one; its pointers are set below to
    // buffers that outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    // size_t with glibc, socklen_t with musl.
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: recvmsg writes at most iov_len bytes to buf and msg_controllen bytes to
    // control, both alive and exclusively borrowed here.
    let n = unsafe { libc::recvmsg(stream.as_raw_fd(), &raw mut msg, libc::MSG_DONTWAIT) };
    let Ok(n) = usize::try_from(n) else {
        return Err(io::Error::last_os_error());
    };
    // The system clock first, then the monotonic one: the receive time taken back from
    // the later of the two is never earlier than the packet came.
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to `now`.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &raw mut now) };
    let read_at = Instant::now();
    let mut arrived = None;
    // SAFETY: the CMSG_* macros walk the control buffer recvmsg filled, within the
    // length it set; a timestamp's data is a timespec.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&raw const msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_TIMESTAMPNS
            {
                arrived = Some(std::ptr::read_unaligned(
                    libc::CMSG_DATA(cmsg).cast::<libc::timespec>(),
                ));
            }
            cmsg = libc::CMSG_NXTHDR(&raw const msg, cmsg);
        }
    }
    let Some(arrived) = arrived else {
        return Ok((n, read_at));
    };
    // The receive time is the system clock's: how long ago it was, by the same clock
    // read at the read, taken back from the monotonic moment of the read.
    let nanos = |t: &libc::timespec| i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec);
    let ago = nanos(&now) - nanos(&arrived);
    let at = u64::try_from(ago)
        .ok()
        .map(Duration::from_nanos)
        .filter(|ago| *ago <= ARRIVAL_LIMIT)
        .and_then(|ago| read_at.checked_sub(ago))
        .unwrap_or(read_at);
    Ok((n, at))
}

/// Whether bytes have arrived on `stream` that nobody has read yet (`FIONREAD`; Unix,
/// else false).
pub fn has_unread(stream: &TcpStream) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int to `n`; an fd that is not a socket gives an
        // error, read as nothing unread.
        let rc = unsafe { libc::ioctl(stream.as_raw_fd(), libc::FIONREAD, &raw mut n) };
        rc == 0 && n > 0
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A line that waited in the socket's buffer is stamped when it arrived (Linux: the
    /// system's receive time), not when it was read; and the unread bytes are told of
    /// until they are read.
    #[test]
    fn a_line_read_late_is_stamped_when_it_arrived() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        stamp_arrivals(&server).unwrap();
        // The system turns receive times on a moment after the first socket asks for
        // them (Linux enables them from a work queue): a packet before is stamped when
        // it is read, so the first tries may be; one of five must not be.
        let mut stamps = Vec::new();
        for _ in 0..5 {
            std::thread::sleep(Duration::from_millis(50));
            assert!(!has_unread(&server));
            let sent = Instant::now();
            client.write_all(b"refreq reply; sm e4;\n").unwrap();
            std::thread::sleep(Duration::from_millis(300));
            assert_eq!(has_unread(&server), cfg!(unix));
            let mut buf = [0u8; 64];
            let (n, at) = recv_stamped(&server, &mut buf).unwrap();
            let read = Instant::now();
            assert_eq!(&buf[..n], b"refreq reply; sm e4;\n");
            assert!(!has_unread(&server));
            // Never before the send, nor after the read.
            assert!(at >= sent && at <= read);
            // Nothing more: not yet.
            let e = recv_stamped(&server, &mut buf).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
            stamps.push(at.duration_since(sent));
        }
        if cfg!(target_os = "linux") {
            assert!(
                stamps.iter().any(|d| *d < Duration::from_millis(100)),
                "every line stamped when read, 300 ms after its send: {stamps:?}"
            );
        } else {
            assert!(stamps.iter().all(|d| *d >= Duration::from_millis(300)));
        }
    }
}
