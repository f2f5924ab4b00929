"""The addresses students can use to reach this machine: its LAN IPv4 addresses.

``serve --address 0.0.0.0`` listens on every network; the banner and the
join URL need the addresses a student's phone can actually open, and the
websocket origins allowed must include them (instead of ``'*'``).
"""

from __future__ import annotations

import ipaddress

import ifaddr


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback and link-local, sorted.

    >>> all(not a.startswith("127.") for a in lan_addresses())
    True
    """
    found = set()
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not ip.is_IPv4:
                continue
            addr = ipaddress.IPv4Address(ip.ip)
            if not (addr.is_loopback or addr.is_link_local or addr.is_unspecified):
                found.add(str(addr))
    return sorted(found, key=ipaddress.IPv4Address)


def wildcard(address: str) -> bool:
    """Whether ``address`` means "every network" (``0.0.0.0``, ``::`` or empty)."""
    return address in ("0.0.0.0", "::", "")


def reachable_hosts(address: str) -> list[str]:
    """The hosts a browser may use for a server listening on ``address``.

    Every network: the LAN addresses; a single address: that one. Loopback
    names come first, since the instructor's own browser uses them.
    """
    hosts = ["localhost", "127.0.0.1"]
    for h in lan_addresses() if wildcard(address) else [address]:
        if h not in hosts:
            hosts.append(h)
    return hosts


def student_hosts(address: str) -> list[str]:
    """The hosts to print for students: the LAN addresses (every network) or the one address."""
    if wildcard(address):
        return lan_addresses() or ["127.0.0.1"]
    return [address]
