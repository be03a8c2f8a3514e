#!/usr/bin/env python3
"""A network link in user space, between two TUN devices: what `tc netem` does, for kernels built
without it (CONFIG_NET_SCH_NETEM unset and no module to load). scripts/test-hosts.sh starts it,
moves one device into each test host's namespace and gives them addresses; every IP packet one host
sends reaches the other through here, so TCP meets the delay, loss and reordering itself: the SYN
handshake costs a round trip, a lost segment waits for its retransmission.

Per direction: the packet is dropped with probability LOSS; otherwise it leaves the sender's queue
after its serialization at RATE (a queue of LIMIT packets, tail-dropped when full, as netem's
default limit), then arrives DELAY ± JITTER later (uniform), never before the packet ahead of it
(jitter alone does not reorder, as on a real path); a share REORDER of the packets skip the delay
and overtake those in flight, as netem's `reorder`. On SIGTERM or SIGINT it writes what it did, as
JSON, to STATS (if given) and exits.
"""
import argparse
import fcntl
import heapq
import json
import os
import random
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def open_tun(name):
    fd = os.open('/dev/net/tun', os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


class Direction:
    """One way of the link: its own queue, rate and counts."""

    def __init__(self, name, out_fd, args, rng):
        self.name = name
        self.out_fd = out_fd
        self.args = args
        self.rng = rng
        self.link_free = 0.0  # when the sender's side has serialized everything queued so far
        self.last_due = 0.0  # the arrival of the last packet sent in order
        self.queued = 0
        self.counts = {'packets': 0, 'bytes': 0, 'delivered': 0, 'lost': 0, 'reordered': 0, 'queue_full': 0, 'write_failed': 0}

    def schedule(self, now, packet, heap, seq):
        a = self.args
        self.counts['packets'] += 1
        self.counts['bytes'] += len(packet)
        if a.loss > 0 and self.rng.random() * 100 < a.loss:
            self.counts['lost'] += 1
            return
        if self.queued >= a.limit:
            self.counts['queue_full'] += 1
            return
        leave = now
        if a.rate > 0:
            leave = max(now, self.link_free) + len(packet) * 8 / a.rate
            self.link_free = leave
        if a.reorder > 0 and a.delay > 0 and self.rng.random() * 100 < a.reorder:
            self.counts['reordered'] += 1
            due = leave
        else:
            jitter = self.rng.uniform(-a.jitter, a.jitter) if a.jitter > 0 else 0.0
            due = max(leave + max(0.0, a.delay + jitter) / 1000, self.last_due)
            self.last_due = due
        self.queued += 1
        heapq.heappush(heap, (due, seq, self, packet))

    def deliver(self, packet):
        self.queued -= 1
        try:
            os.write(self.out_fd, packet)
            self.counts['delivered'] += 1
        except OSError as e:
            # The receiving host refused it (its device down, a protocol it does not take).
            self.counts['write_failed'] += 1
            self.counts.setdefault('write_errors', {})[e.strerror] = self.counts.get('write_errors', {}).get(e.strerror, 0) + 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--dev-a', required=True, help='TUN device of the client host')
    p.add_argument('--dev-b', required=True, help='TUN device of the server host')
    p.add_argument('--delay', type=float, default=0, help='one-way delay, ms (half the round trip)')
    p.add_argument('--jitter', type=float, default=0, help='± this many ms on each packet')
    p.add_argument('--loss', type=float, default=0, help='share of packets dropped, percent, each way')
    p.add_argument('--rate', type=float, default=0, help='bits per second each way (0: unlimited)')
    p.add_argument('--reorder', type=float, default=0, help='share of packets sent without the delay, percent')
    p.add_argument('--limit', type=int, default=1000, help='packets queued per direction before tail drop')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--stats', help='file for the counts, written on exit')
    args = p.parse_args()

    fa, fb = open_tun(args.dev_a), open_tun(args.dev_b)
    rng = random.Random(args.seed)
    ways = {fa: Direction('client->server', fb, args, rng), fb: Direction('server->client', fa, args, rng)}
    heap = []
    seq = 0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    print('ready', flush=True)
    while not stop:
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            _, _, way, packet = heapq.heappop(heap)
            way.deliver(packet)
        timeout = max(0.0, heap[0][0] - now) if heap else 0.2
        try:
            ready, _, _ = select.select([fa, fb], [], [], timeout)
        except InterruptedError:
            continue
        now = time.monotonic()
        for fd in ready:
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                seq += 1
                ways[fd].schedule(now, packet, heap, seq)
    if args.stats:
        with open(args.stats, 'w') as f:
            json.dump({w.name: w.counts for w in ways.values()}, f)
    sys.exit(0)


if __name__ == '__main__':
    main()
