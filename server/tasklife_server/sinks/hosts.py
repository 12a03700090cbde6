"""Which hosts a sink may reach (--sink-allowed-hosts), checked when a sink is written and
at every connection, so that a sink cannot be pointed at internal services (SSRF).

By default only global addresses are allowed: no loopback, private, link-local (cloud
metadata), multicast, reserved or unspecified one. The flag adds hosts by name, addresses,
or CIDR networks; `*` allows everything. A name is allowed when it is listed itself, or
when every address it resolves to is allowed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from typing import Iterable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class HostRefused(Exception):
    def __init__(self, host: str, why: str):
        self.host = host
        self.why = why
        super().__init__(f"{host}: {why}")


@dataclass(frozen=True)
class HostPolicy:
    names: frozenset[str] = frozenset()
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    everything: bool = False

    @classmethod
    def parse(cls, entries: Iterable[str]) -> HostPolicy:
        names, networks, everything = set(), [], False
        for entry in entries:
            if entry == "*":
                everything = True
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                names.add(entry.lower().rstrip("."))
        return cls(frozenset(names), tuple(networks), everything)

    def allows_name(self, host: str) -> bool:
        return self.everything or host.lower().rstrip(".") in self.names

    def allows_address(self, address: Address) -> bool:
        if self.everything or any(address in network for network in self.networks):
            return True
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return address.is_global and not address.is_multicast

    def check_address(self, host: str, address: str) -> None:
        """Raises HostRefused when `host`'s resolved `address` is not allowed."""
        if self.allows_name(host):
            return
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
        if not self.allows_address(parsed):
            raise HostRefused(host, f"{parsed} is not a global address")

    async def check_host(self, host: str, port: int = 0) -> None:
        """Resolves `host` and raises HostRefused unless every address is allowed (or it
        cannot be resolved: that is refused too)."""
        if self.allows_name(host):
            return
        try:
            ipaddress.ip_address(host)
            addresses = [host]
        except ValueError:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError as exc:
                raise HostRefused(host, f"cannot be resolved ({exc.strerror or exc})") from exc
            addresses = [str(info[4][0]) for info in infos]
        for address in addresses:
            self.check_address(host, address)
