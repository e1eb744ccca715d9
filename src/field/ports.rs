//! The serial ports on this machine, for `argus ports`: what each one is (a USB adapter,
//! a built-in UART, a PCI card) and its stable `/dev/serial/by-id` name.
//!
//! On Linux the ports are read from sysfs, without libudev: every entry of
//! `/sys/class/tty` that has a `device` link is a real port (the virtual consoles and
//! pseudo-terminals have none), except the built-in UART slots whose `type` says no chip
//! answered. A USB port's vendor and product id, strings and serial number are read from
//! the USB device directory above its tty, and the `/dev/serial/by-id` and
//! `/dev/serial/by-path` links that udev made are matched by the device name they point
//! to. [`list_in`] does the same under another root, so that a fake sysfs tree can be
//! tested on any machine. Elsewhere (Windows, macOS), [`list`] asks the `serialport`
//! crate.

use std::cmp::Ordering;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What kind of device a serial port is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A USB serial adapter (or a USB device with a serial interface, such as a CDC ACM
    /// modem).
    Usb(UsbInfo),
    /// A UART built into the machine (or on a platform or PnP bus): `ttyS0`, `ttyAMA0`.
    Uart {
        /// The driver bound to it, such as `serial8250` or `serial` (PnP), when known.
        driver: Option<String>,
    },
    /// A serial port on a PCI or PCI Express card.
    Pci {
        /// The driver bound to the card, such as `serial` or `exar_serial`, when known.
        driver: Option<String>,
    },
    /// A Bluetooth serial port (reported by the `serialport` crate only, on Windows and
    /// macOS).
    Bluetooth,
    /// A real device of another kind, or one whose kind cannot be told.
    Other {
        /// The driver bound to it, when known.
        driver: Option<String>,
    },
}

/// What is known of a USB serial port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsbInfo {
    /// The USB vendor id (`idVendor`), such as `0x0403` for FTDI.
    pub vid: u16,
    /// The USB product id (`idProduct`), such as `0x6001` for an FT232R.
    pub pid: u16,
    /// The manufacturer string the device reports, when it has one.
    pub manufacturer: Option<String>,
    /// The product string the device reports, when it has one.
    pub product: Option<String>,
    /// The serial number string the device reports, when it has one (many cheap
    /// adapters, such as the CH340, have none).
    pub serial: Option<String>,
    /// The kernel driver, such as `ftdi_sio`, `ch341-uart`, `pl2303`, `cp210x` or
    /// `cdc_acm`, when known.
    pub driver: Option<String>,
    /// The USB interface number of the port (`bInterfaceNumber`), which tells the ports
    /// of a multi-port adapter apart, when known.
    pub interface: Option<u8>,
}

/// One serial port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    /// The device path to open, such as `/dev/ttyUSB0` (or `COM3` on Windows).
    pub path: String,
    /// What the port is.
    pub kind: Kind,
    /// The stable name udev made in `/dev/serial/by-id`, which stays the same whichever
    /// USB socket the adapter is plugged into, when there is one.
    pub by_id: Option<String>,
    /// The name udev made in `/dev/serial/by-path`, which names the socket rather than
    /// the adapter, when there is one.
    pub by_path: Option<String>,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Usb(usb) => usb.fmt(f),
            Kind::Uart { driver } => {
                f.write_str("built-in UART")?;
                write_driver(f, driver.as_deref())
            }
            Kind::Pci { driver } => {
                f.write_str("PCI serial card")?;
                write_driver(f, driver.as_deref())
            }
            Kind::Bluetooth => f.write_str("Bluetooth"),
            Kind::Other { driver } => {
                f.write_str("serial device")?;
                write_driver(f, driver.as_deref())
            }
        }
    }
}

impl fmt::Display for UsbInfo {
    /// Writes `USB 0403:6001 FTDI FT232R USB UART serial A50285BI (ftdi_sio)`, leaving out
    /// what is not known; the interface number is written only when it is not 0.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "USB {:04x}:{:04x}", self.vid, self.pid)?;
        if let Some(manufacturer) = &self.manufacturer {
            write!(f, " {manufacturer}")?;
        }
        if let Some(product) = &self.product {
            write!(f, " {product}")?;
        }
        if let Some(serial) = &self.serial {
            write!(f, " serial {serial}")?;
        }
        if let Some(interface) = self.interface.filter(|&i| i != 0) {
            write!(f, " interface {interface}")?;
        }
        write_driver(f, self.driver.as_deref())
    }
}

/// Writes ` (driver)` when the driver is known.
fn write_driver(f: &mut fmt::Formatter<'_>, driver: Option<&str>) -> fmt::Result {
    match driver {
        Some(driver) => write!(f, " ({driver})"),
        None => Ok(()),
    }
}

impl fmt::Display for PortInfo {
    /// Writes one line: the path, what the port is, and its stable name (the by-id link,
    /// else the by-path link) when there is one, separated by two spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}  {}", self.path, self.kind)?;
        if let Some(link) = self.by_id.as_ref().or(self.by_path.as_ref()) {
            write!(f, "  {link}")?;
        }
        Ok(())
    }
}

impl From<serialport::SerialPortInfo> for PortInfo {
    /// Maps what the `serialport` crate reports; it knows no driver, interface number or
    /// udev links.
    fn from(info: serialport::SerialPortInfo) -> Self {
        let kind = match info.port_type {
            serialport::SerialPortType::UsbPort(usb) => Kind::Usb(UsbInfo {
                vid: usb.vid,
                pid: usb.pid,
                manufacturer: usb.manufacturer,
                product: usb.product,
                serial: usb.serial_number,
                driver: None,
                interface: None,
            }),
            serialport::SerialPortType::PciPort => Kind::Pci { driver: None },
            serialport::SerialPortType::BluetoothPort => Kind::Bluetooth,
            serialport::SerialPortType::Unknown => Kind::Other { driver: None },
        };
        PortInfo {
            path: info.port_name,
            kind,
            by_id: None,
            by_path: None,
        }
    }
}

/// The serial ports on this machine, sorted by path (`ttyS2` before `ttyS10`).
///
/// On Linux they are read from `/sys` and `/dev/serial` (see [`list_in`]). A machine with
/// no serial ports gives an empty list, not an error.
///
/// # Errors
///
/// Fails when `/sys/class/tty` exists but cannot be read.
#[cfg(target_os = "linux")]
pub fn list() -> io::Result<Vec<PortInfo>> {
    list_in(Path::new("/"))
}

/// The serial ports on this machine, sorted by path, as the `serialport` crate finds
/// them.
///
/// A machine with no serial ports gives an empty list, not an error.
///
/// # Errors
///
/// Fails when the operating system cannot enumerate its serial ports.
#[cfg(not(target_os = "linux"))]
pub fn list() -> io::Result<Vec<PortInfo>> {
    let mut ports: Vec<PortInfo> = serialport::available_ports()?
        .into_iter()
        .map(PortInfo::from)
        .collect();
    ports.sort_by(|a, b| natural_cmp(&a.path, &b.path));
    Ok(ports)
}

/// The serial ports described by the Linux sysfs and `/dev/serial` trees under `root`
/// (normally `/`), sorted by path.
///
/// A tty under `root/sys/class/tty` is a port when it has a `device` link and, if it has
/// a `type` file (the 8250 driver's UART slots), the type is not 0 (no UART there).
/// Paths are reported as on the real machine (`/dev/ttyUSB0`,
/// `/dev/serial/by-id/...`), whatever the root. A missing `root/sys/class/tty` gives an
/// empty list; an entry that cannot be read is left out.
///
/// # Errors
///
/// Fails when `root/sys/class/tty` exists but cannot be listed.
pub fn list_in(root: &Path) -> io::Result<Vec<PortInfo>> {
    let class = root.join("sys/class/tty");
    let entries = match fs::read_dir(&class) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let devices = fs::canonicalize(root.join("sys/devices")).ok();
    let by_id = links(&root.join("dev/serial/by-id"));
    let by_path = links(&root.join("dev/serial/by-path"));
    let mut ports = Vec::new();
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let Some(kind) = tty_kind(&entry.path(), devices.as_deref()) else {
            continue;
        };
        // The kernel writes a '/' in a device name as '!' in sysfs (udev turns it back).
        let dev = name.replace('!', "/");
        let node = dev.rsplit('/').next().unwrap_or(&dev);
        ports.push(PortInfo {
            path: format!("/dev/{dev}"),
            kind,
            by_id: link_to(&by_id, node, "/dev/serial/by-id"),
            by_path: link_to(&by_path, node, "/dev/serial/by-path"),
        });
    }
    ports.sort_by(|a, b| natural_cmp(&a.path, &b.path));
    Ok(ports)
}

/// What the tty at `tty` (an entry of `sys/class/tty`) is, or `None` when it is not a
/// real port. `devices` is the canonical `sys/devices`, above which the search for a USB
/// device stops.
fn tty_kind(tty: &Path, devices: Option<&Path>) -> Option<Kind> {
    let device = fs::canonicalize(tty.join("device")).ok()?;
    if let Some(kind) = read_attr(&tty.join("type")) {
        // PORT_UNKNOWN: an 8250 slot where no UART answered.
        if kind.parse::<u32>() == Ok(0) {
            return None;
        }
    }
    let real = real_device(&device);
    let driver = link_name(&real.join("driver"));
    if let Some(usb) = usb_device(&device, devices) {
        let vid = read_hex(&usb.join("idVendor"))?;
        let pid = read_hex(&usb.join("idProduct"))?;
        let interface = ancestors(&device, devices)
            .take_while(|dir| *dir != usb)
            .find_map(|dir| read_attr(&dir.join("bInterfaceNumber")))
            .and_then(|n| u8::from_str_radix(&n, 16).ok());
        return Some(Kind::Usb(UsbInfo {
            vid,
            pid,
            manufacturer: read_attr(&usb.join("manufacturer")),
            product: read_attr(&usb.join("product")),
            serial: read_attr(&usb.join("serial")),
            driver,
            interface,
        }));
    }
    let subsystem = link_name(&real.join("subsystem"));
    Some(match subsystem.as_deref() {
        Some("pci") => Kind::Pci { driver },
        Some("platform" | "pnp" | "amba" | "acpi" | "serial-base") => Kind::Uart { driver },
        _ => Kind::Other { driver },
    })
}

/// The device that a tty's `device` link leads to, above the `serial-base` layers
/// (controller and port) that Linux 6.2 and later put between a UART's tty and its
/// driver's device.
fn real_device(device: &Path) -> PathBuf {
    let mut dir = device;
    for _ in 0..4 {
        if link_name(&dir.join("subsystem")).as_deref() != Some("serial-base") {
            break;
        }
        match dir.parent() {
            Some(parent) => dir = parent,
            None => break,
        }
    }
    dir.to_path_buf()
}

/// The USB device directory (the one with `idVendor` and `idProduct`) at or above
/// `device`, if there is one below `devices`.
fn usb_device(device: &Path, devices: Option<&Path>) -> Option<PathBuf> {
    ancestors(device, devices)
        .find(|dir| dir.join("idVendor").is_file() && dir.join("idProduct").is_file())
        .map(Path::to_path_buf)
}

/// `device` and its parents, stopping before `devices` (when given) and after a depth no
/// real sysfs tree reaches.
fn ancestors<'a>(device: &'a Path, devices: Option<&'a Path>) -> impl Iterator<Item = &'a Path> {
    device
        .ancestors()
        .take_while(move |dir| devices.is_none_or(|top| dir.starts_with(top) && *dir != top))
        .take(16)
}

/// A sysfs attribute's value, trimmed, or `None` when it is missing, unreadable or
/// empty.
fn read_attr(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// A sysfs attribute holding a 16-bit hexadecimal number, such as `idVendor`.
fn read_hex(path: &Path) -> Option<u16> {
    u16::from_str_radix(&read_attr(path)?, 16).ok()
}

/// The last component of the target of the symbolic link at `path`, such as the
/// driver's name for a `driver` link.
fn link_name(path: &Path) -> Option<String> {
    let target = fs::read_link(path).ok()?;
    target.file_name()?.to_str().map(str::to_owned)
}

/// The symbolic links in `dir` (a `/dev/serial` directory) as (link name, name of the
/// device node it points to), sorted by link name. A missing directory gives none.
fn links(dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut links: Vec<(String, String)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            Some((name, link_name(&entry.path())?))
        })
        .collect();
    links.sort();
    links
}

/// The first of `links` that points to the device node `node`, as a path under `dir`.
fn link_to(links: &[(String, String)], node: &str, dir: &str) -> Option<String> {
    links
        .iter()
        .find(|(_, target)| target == node)
        .map(|(name, _)| format!("{dir}/{name}"))
}

/// Orders device paths with their trailing numbers compared as numbers, so that
/// `/dev/ttyS2` comes before `/dev/ttyS10`.
fn natural_cmp(a: &str, b: &str) -> Ordering {
    let split = |s: &str| {
        let stem = s.trim_end_matches(|c: char| c.is_ascii_digit());
        let number = s[stem.len()..].parse::<u64>().ok();
        (stem.len(), number)
    };
    let (a_stem, a_number) = split(a);
    let (b_stem, b_number) = split(b);
    a[..a_stem]
        .cmp(&b[..b_stem])
        .then(a_number.cmp(&b_number))
        .then(a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    use std::os::unix::fs::symlink;

    /// Writes `text` to `root/path`, creating the directories above it.
    #[cfg(unix)]
    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Makes `root/path` a symbolic link to `target`, creating the directories above it.
    #[cfg(unix)]
    fn link(root: &Path, path: &str, target: &str) {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, path).unwrap();
    }

    fn usb(driver: &str) -> UsbInfo {
        UsbInfo {
            vid: 0x0403,
            pid: 0x6001,
            manufacturer: Some("FTDI".into()),
            product: Some("FT232R USB UART".into()),
            serial: Some("A50285BI".into()),
            driver: Some(driver.into()),
            interface: Some(0),
        }
    }

    #[test]
    fn display_shows_what_is_known() {
        let mut port = PortInfo {
            path: "/dev/ttyUSB0".into(),
            kind: Kind::Usb(usb("ftdi_sio")),
            by_id: Some("/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0".into()),
            by_path: Some("/dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0-port0".into()),
        };
        assert_eq!(
            port.to_string(),
            "/dev/ttyUSB0  USB 0403:6001 FTDI FT232R USB UART serial A50285BI (ftdi_sio)  \
             /dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0"
        );
        port.by_id = None;
        port.kind = Kind::Usb(UsbInfo {
            vid: 0x0403,
            pid: 0x6010,
            manufacturer: None,
            product: None,
            serial: None,
            driver: None,
            interface: Some(1),
        });
        assert_eq!(
            port.to_string(),
            "/dev/ttyUSB0  USB 0403:6010 interface 1  \
             /dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0-port0"
        );
        let uart = PortInfo {
            path: "/dev/ttyS0".into(),
            kind: Kind::Uart {
                driver: Some("serial8250".into()),
            },
            by_id: None,
            by_path: None,
        };
        assert_eq!(uart.to_string(), "/dev/ttyS0  built-in UART (serial8250)");
        let card = PortInfo {
            path: "COM7".into(),
            kind: Kind::Pci { driver: None },
            by_id: None,
            by_path: None,
        };
        assert_eq!(card.to_string(), "COM7  PCI serial card");
    }

    #[test]
    fn natural_order() {
        let mut paths = vec![
            "/dev/ttyS10",
            "/dev/ttyUSB0",
            "/dev/ttyS2",
            "/dev/ttyACM0",
            "COM3",
        ];
        paths.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            paths,
            [
                "/dev/ttyACM0",
                "/dev/ttyS2",
                "/dev/ttyS10",
                "/dev/ttyUSB0",
                "COM3"
            ]
        );
    }

    #[test]
    fn no_sysfs_is_no_ports() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(list_in(root.path()).unwrap(), []);
        assert_eq!(list_in(&root.path().join("missing")).unwrap(), []);
    }

    /// The layout before Linux 6.2 (every 8250 slot's device is the `serial8250`
    /// platform device), a CDC ACM device whose tty hangs off the interface directly,
    /// and a PCI card.
    #[test]
    #[cfg(unix)]
    fn older_layout_acm_and_pci() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let platform = "sys/devices/platform/serial8250";
        write(
            root,
            &format!("{platform}/modalias"),
            "platform:serial8250\n",
        );
        link(
            root,
            &format!("{platform}/driver"),
            "../../../bus/platform/drivers/serial8250",
        );
        link(
            root,
            &format!("{platform}/subsystem"),
            "../../../bus/platform",
        );
        for (n, kind) in [(0, 4), (1, 0), (2, 0), (3, 0)] {
            let tty = format!("{platform}/tty/ttyS{n}");
            write(root, &format!("{tty}/type"), &format!("{kind}\n"));
            link(root, &format!("{tty}/device"), "../../../serial8250");
            link(
                root,
                &format!("sys/class/tty/ttyS{n}"),
                &format!("../../devices/platform/serial8250/tty/ttyS{n}"),
            );
        }

        let usb = "sys/devices/pci0000:00/0000:00:14.0/usb1/1-4";
        write(root, &format!("{usb}/idVendor"), "2341\n");
        write(root, &format!("{usb}/idProduct"), "0043\n");
        write(
            root,
            &format!("{usb}/manufacturer"),
            "Arduino (www.arduino.cc)\n",
        );
        write(root, &format!("{usb}/serial"), "\n");
        write(root, &format!("{usb}/1-4:1.0/bInterfaceNumber"), "00\n");
        link(
            root,
            &format!("{usb}/1-4:1.0/driver"),
            "../../../../../../bus/usb/drivers/cdc_acm",
        );
        link(
            root,
            &format!("{usb}/1-4:1.0/tty/ttyACM0/device"),
            "../../../1-4:1.0",
        );
        link(
            root,
            "sys/class/tty/ttyACM0",
            "../../devices/pci0000:00/0000:00:14.0/usb1/1-4/1-4:1.0/tty/ttyACM0",
        );

        let card = "sys/devices/pci0000:00/0000:00:1c.0/0000:03:00.0";
        link(
            root,
            &format!("{card}/driver"),
            "../../../../bus/pci/drivers/serial",
        );
        link(root, &format!("{card}/subsystem"), "../../../../bus/pci");
        write(root, &format!("{card}/tty/ttyS4/type"), "4\n");
        link(
            root,
            &format!("{card}/tty/ttyS4/device"),
            "../../../0000:03:00.0",
        );
        link(
            root,
            "sys/class/tty/ttyS4",
            "../../devices/pci0000:00/0000:00:1c.0/0000:03:00.0/tty/ttyS4",
        );

        write(root, "sys/devices/virtual/tty/ptmx/dev", "5:2\n");
        link(root, "sys/class/tty/ptmx", "../../devices/virtual/tty/ptmx");
        link(
            root,
            "dev/serial/by-id/usb-Arduino__www.arduino.cc__0043-if00",
            "../../ttyACM0",
        );

        let ports = list_in(root).unwrap();
        assert_eq!(
            ports,
            [
                PortInfo {
                    path: "/dev/ttyACM0".into(),
                    kind: Kind::Usb(UsbInfo {
                        vid: 0x2341,
                        pid: 0x0043,
                        manufacturer: Some("Arduino (www.arduino.cc)".into()),
                        product: None,
                        serial: None,
                        driver: Some("cdc_acm".into()),
                        interface: Some(0),
                    }),
                    by_id: Some("/dev/serial/by-id/usb-Arduino__www.arduino.cc__0043-if00".into()),
                    by_path: None,
                },
                PortInfo {
                    path: "/dev/ttyS0".into(),
                    kind: Kind::Uart {
                        driver: Some("serial8250".into())
                    },
                    by_id: None,
                    by_path: None,
                },
                PortInfo {
                    path: "/dev/ttyS4".into(),
                    kind: Kind::Pci {
                        driver: Some("serial".into())
                    },
                    by_id: None,
                    by_path: None,
                },
            ]
        );
    }

    #[test]
    fn from_serialport() {
        let info = serialport::SerialPortInfo {
            port_name: "COM3".into(),
            port_type: serialport::SerialPortType::BluetoothPort,
        };
        assert_eq!(
            PortInfo::from(info),
            PortInfo {
                path: "COM3".into(),
                kind: Kind::Bluetooth,
                by_id: None,
                by_path: None,
            }
        );
    }
}
