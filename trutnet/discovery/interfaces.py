"""Which address of this machine its LAN can reach (I/O edge): where a host binds its
embedded broker and what it announces.

The interface of the default route comes first (a UDP ``connect`` sends nothing, it
only asks the routing table). A LAN with no default route (a switch at a LAN party,
an offline home network) has none: then the first interface that is up, is not the
loopback and carries multicast (zeroconf's mDNS needs it), a link-local address
(169.254.x.x, two machines cabled with no DHCP) last. Loopback (127.0.0.1) only when
there is no such interface: then nobody else can reach the table, and
:func:`reachable` says so.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

LOOPBACK = "127.0.0.1"
IFF_UP, IFF_LOOPBACK, IFF_MULTICAST = 0x1, 0x8, 0x1000  # <linux/if.h>


def _routed_address() -> str | None:
    """The address of the interface the default route leaves by; None without one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            return str(s.getsockname()[0])
        except OSError:  # no route to anywhere outside this machine's own networks
            return None


def _flags(interface: str) -> int | None:
    """An interface's flags where the system shows them (Linux), else None."""
    try:
        return int((Path("/sys/class/net") / interface / "flags").read_text().strip(), 16)
    except (OSError, ValueError):
        return None


def multicast_addresses() -> list[str]:
    """This machine's IPv4 addresses on interfaces that are up, are not the loopback
    and carry multicast; link-local ones last."""
    import ifaddr  # zeroconf's own dependency: every interface and its addresses

    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        flags = _flags(adapter.name)
        if flags is not None and (
            not flags & IFF_UP or flags & IFF_LOOPBACK or not flags & IFF_MULTICAST
        ):
            continue
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):  # IPv6: (address, flowinfo, scope)
                continue
            address = ipaddress.IPv4Address(ip.ip)
            if not address.is_loopback and str(address) not in found:
                found.append(str(address))
    return sorted(found, key=lambda a: ipaddress.IPv4Address(a).is_link_local)


def lan_address() -> str:
    """Where to bind a broker that the LAN must reach (see the module's docstring)."""
    routed = _routed_address()
    if routed is not None and not ipaddress.IPv4Address(routed).is_loopback:
        return routed
    addresses = multicast_addresses()
    return addresses[0] if addresses else LOOPBACK


def reachable(address: str) -> bool:
    """Whether other machines can reach a broker bound to ``address``."""
    return not ipaddress.IPv4Address(address).is_loopback
