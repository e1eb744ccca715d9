//! `argus ports` from outside: the listing of a fake sysfs tree in `tests/data/sysfs`
//! (an FTDI and a CH340 USB adapter, a built-in UART, an absent UART slot and a virtual
//! console), and the listing of this machine's real ports, which must not fail even when
//! there are none.

#[cfg(unix)]
use std::path::{Path, PathBuf};

use argus::field::ports;
#[cfg(unix)]
use argus::field::ports::{Kind, PortInfo, UsbInfo};

/// The fake sysfs tree's root.
#[cfg(unix)]
fn fake_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sysfs")
}

/// The three ports of the fake tree, sorted by path.
#[cfg(unix)]
fn expected() -> Vec<PortInfo> {
    vec![
        PortInfo {
            path: "/dev/ttyS0".into(),
            kind: Kind::Uart {
                driver: Some("serial8250".into()),
            },
            by_id: None,
            by_path: None,
        },
        PortInfo {
            path: "/dev/ttyUSB0".into(),
            kind: Kind::Usb(UsbInfo {
                vid: 0x0403,
                pid: 0x6001,
                manufacturer: Some("FTDI".into()),
                product: Some("FT232R USB UART".into()),
                serial: Some("A50285BI".into()),
                driver: Some("ftdi_sio".into()),
                interface: Some(0),
            }),
            by_id: Some("/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0".into()),
            by_path: Some("/dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0-port0".into()),
        },
        PortInfo {
            path: "/dev/ttyUSB1".into(),
            kind: Kind::Usb(UsbInfo {
                vid: 0x1a86,
                pid: 0x7523,
                manufacturer: None,
                product: Some("USB Serial".into()),
                serial: None,
                driver: Some("ch341-uart".into()),
                interface: Some(0),
            }),
            by_id: Some("/dev/serial/by-id/usb-1a86_USB_Serial-if00-port0".into()),
            by_path: Some("/dev/serial/by-path/pci-0000:00:14.0-usb-0:3:1.0-port0".into()),
        },
    ]
}

// The fake tree is made of symbolic links, which a Windows checkout may not keep.
#[cfg(unix)]
#[test]
fn fake_sysfs_gives_the_three_real_ports() {
    let ports = ports::list_in(&fake_root()).expect("the fake tree is readable");
    assert_eq!(ports, expected());
}

#[cfg(unix)]
#[test]
fn fake_sysfs_display_lines() {
    let lines: Vec<String> = ports::list_in(&fake_root())
        .expect("the fake tree is readable")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "/dev/ttyS0  built-in UART (serial8250)",
            "/dev/ttyUSB0  USB 0403:6001 FTDI FT232R USB UART serial A50285BI (ftdi_sio)  \
             /dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0",
            "/dev/ttyUSB1  USB 1a86:7523 USB Serial (ch341-uart)  \
             /dev/serial/by-id/usb-1a86_USB_Serial-if00-port0",
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_root_without_sysfs_has_no_ports() {
    let root = tempfile::tempdir().expect("a temporary directory");
    assert_eq!(
        ports::list_in(root.path()).expect("no sysfs is no error"),
        []
    );
}

#[test]
fn this_machine_can_be_listed() {
    let ports = ports::list().expect("listing this machine's ports does not fail");
    for port in &ports {
        let line = port.to_string();
        assert!(line.starts_with(&port.path), "{line}");
        assert!(!line.contains('\n'), "{line}");
        // The virtual consoles and pseudo-terminals are not serial ports.
        let console = port
            .path
            .strip_prefix("/dev/tty")
            .is_some_and(|n| n.is_empty() || n.parse::<u32>().is_ok());
        assert!(!console, "{line}");
        assert!(
            !["/dev/console", "/dev/ptmx"].contains(&port.path.as_str()),
            "{line}"
        );
        println!("{line}");
    }
}
