#!/usr/bin/env bash
# Test hosts: a client host and a server host, each in a network namespace of its own, joined by a
# shaped link (delay, jitter, loss, rate, reordering), so that a benchmark meets a network instead
# of loopback. The server (the simulator, llama-server) runs on the server host, k6 on the client
# host; nothing is routed out of the namespaces. With --clients N, N client hosts, each with a link
# of its own to the one server host (k6 instances of one split run, docs/distributed.md). Needs
# root and iproute2.
#
#   scripts/test-hosts.sh run [options] -- COMMAND...   make the hosts, run COMMAND, remove them
#                                                      (also on Ctrl-C or when COMMAND fails)
#   scripts/test-hosts.sh up [options]                 make them and leave them (prints the env)
#   scripts/test-hosts.sh down [--name NAME]           remove them
#   scripts/test-hosts.sh probe                        which link this kernel allows, and why
#
# Options: --rtt MS (round trip, split evenly between the two ways), --jitter MS (± per packet,
# each way), --loss PCT (each way), --rate MBIT (each way), --reorder PCT, --seed N,
# --name NAME (default llmb: namespaces NAME-client and NAME-server), --net A.B.C (the /30 inside
# them: A.B.C.1 is the client, A.B.C.2 the server; default 10.251.0), --link auto|netem|user,
# --clients N (1 to 4; client host i > 1 is NAME-client<i>, its link the i-th /30 of A.B.C, and it
# reaches the server host at the same A.B.C.2 through its own link; each link is shaped alike).
#
# The link: `tc netem` on a veth pair where the kernel has it; where it has not (netem is a kernel
# option, CONFIG_NET_SCH_NETEM, often left out of VM kernels), the script says so and joins the
# hosts with scripts/net-link.py, which does netem's work in user space between two TUN devices:
# every packet still crosses it, so the TCP handshake pays its round trip and a lost segment its
# retransmission. COMMAND (and `up`) get TEST_HOSTS_CLIENT and TEST_HOSTS_SERVER (namespace names,
# for `ip netns exec`), TEST_HOSTS_CLIENT_ADDR, TEST_HOSTS_SERVER_ADDR, TEST_HOSTS_LINK (netem or
# user) and TEST_HOSTS_STATS (the user-space link's counts, JSON, written when it stops); with
# --clients N also TEST_HOSTS_CLIENTS=N and, per client host i, TEST_HOSTS_CLIENT<i>,
# TEST_HOSTS_CLIENT_ADDR<i> and TEST_HOSTS_STATS<i> (i = 1 is the same as the unnumbered ones).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "test-hosts: $*" >&2; exit 1; }

cmd="${1:-}"; [ -n "$cmd" ] || usage; shift
name=llmb net=10.251.0 rtt=0 jitter=0 loss=0 rate=0 reorder=0 seed=1 link=auto clients=1
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name="$2"; shift 2 ;;
    --net) net="$2"; shift 2 ;;
    --rtt) rtt="$2"; shift 2 ;;
    --jitter) jitter="$2"; shift 2 ;;
    --loss) loss="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --reorder) reorder="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --link) link="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --) shift; break ;;
    *) die "unknown option $1 (see the top of $0)" ;;
  esac
done
num='^[0-9]+([.][0-9]+)?$'
for v in rtt jitter loss rate reorder; do [[ "${!v}" =~ $num ]] || die "--$v ${!v}: not a number"; done
[[ "$name" =~ ^[a-z0-9-]{1,8}$ ]] || die "--name $name: 1 to 8 of a-z, 0-9, - (interface names are short)"
[[ "$net" =~ ^10\.[0-9]+\.[0-9]+$ ]] || die "--net $net: three octets of 10.0.0.0/8, e.g. 10.251.0 (private, and only inside the test hosts)"
case "$link" in auto | netem | user) ;; *) die "--link $link: auto, netem or user" ;; esac
[[ "$clients" =~ ^[1-4]$ ]] || die "--clients $clients: 1 to 4 client hosts"

client="$name-client" server="$name-server"
state="/run/k6-llm-bench-test-hosts/$name"
client_addr="$net.1" server_addr="$net.2"
# Client host i: its namespace, its link's devices, its address and the server's end of its /30.
client_ns() { if [ "$1" = 1 ]; then echo "$client"; else echo "$client$1"; fi; }
dev_c() { if [ "$1" = 1 ]; then echo "${name}c"; else echo "${name}c$1"; fi; }
dev_s() { if [ "$1" = 1 ]; then echo "${name}s"; else echo "${name}s$1"; fi; }
addr_c() { echo "$net.$((4 * ($1 - 1) + 1))"; }
addr_s() { echo "$net.$((4 * ($1 - 1) + 2))"; }
stats_of() { if [ "$1" = 1 ]; then echo "$state/stats.json"; else echo "$state/stats$1.json"; fi; }
half() { awk -v x="$1" 'BEGIN { printf "%.3f", x / 2 }'; }

need_root() {
  [ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
  command -v ip >/dev/null || die "no ip: apt-get install -y iproute2"
}

# Why netem cannot be used here, or nothing when it can: a trial qdisc on a veth pair in a scratch
# namespace (the kernel's own answer), with its configuration when it can be read.
netem_missing() {
  command -v tc >/dev/null || { echo "no tc (apt-get install -y iproute2)"; return; }
  local ns="$name-probe" out
  ip netns add "$ns" 2>/dev/null || true
  ip -n "$ns" link add "${name}p0" type veth peer name "${name}p1" 2>/dev/null || true
  if out=$(tc -n "$ns" qdisc add dev "${name}p0" root netem delay 1ms 2>&1); then out=""; fi
  ip netns del "$ns" 2>/dev/null || true
  [ -n "$out" ] || return 0
  local conf=""
  if [ -r /proc/config.gz ]; then conf=$(zcat /proc/config.gz | grep -E '^(# )?CONFIG_NET_SCH_NETEM[= ]' || true); fi
  echo "tc netem refused: '$out'${conf:+ (kernel $(uname -r): $conf)}"
}

# Removes every link and client host of this name, however many `up` made.
down() {
  local f pid ns
  for f in "$state"/link*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$f"
  done
  for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E "^$client([2-9])?\$" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
  ip netns del "$server" 2>/dev/null || true
}

hosts() {
  ip netns add "$server"
  ip -n "$server" link set lo up
  local i
  for i in $(seq "$clients"); do
    ip netns add "$(client_ns "$i")"
    ip -n "$(client_ns "$i")" link set lo up
  done
}

address() { # client host i's link, its devices already in the namespaces
  local i="$1" ns; ns=$(client_ns "$1")
  ip -n "$ns" addr add "$(addr_c "$i")/30" dev "$(dev_c "$i")"
  ip -n "$server" addr add "$(addr_s "$i")/30" dev "$(dev_s "$i")"
  ip -n "$ns" link set "$(dev_c "$i")" up
  ip -n "$server" link set "$(dev_s "$i")" up
  # One server address for every client host: a further client reaches it through its own link
  # (the server answers from it: the address is its own, the client's /30 is on that link).
  [ "$i" = 1 ] || ip -n "$ns" route add "$server_addr/32" dev "$(dev_c "$i")" src "$(addr_c "$i")"
}

up_netem() {
  hosts
  local d; d=$(half "$rtt")
  local shape=(delay "${d}ms")
  [ "$jitter" = 0 ] || shape+=("${jitter}ms")
  [ "$loss" = 0 ] || shape+=(loss "${loss}%")
  [ "$reorder" = 0 ] || shape+=(reorder "${reorder}%")
  [ "$rate" = 0 ] || shape+=(rate "${rate}mbit")
  local i
  for i in $(seq "$clients"); do
    ip link add "$(dev_c "$i")" netns "$(client_ns "$i")" type veth peer name "$(dev_s "$i")" netns "$server"
    address "$i"
    tc -n "$(client_ns "$i")" qdisc add dev "$(dev_c "$i")" root netem "${shape[@]}"
    tc -n "$server" qdisc add dev "$(dev_s "$i")" root netem "${shape[@]}"
  done
}

up_user() {
  command -v python3 >/dev/null || die "no python3 for the user-space link (apt-get install -y python3-minimal)"
  [ -c /dev/net/tun ] || die "no /dev/net/tun (the kernel's TUN driver) for the user-space link"
  hosts
  mkdir -p "$state"
  local i
  for i in $(seq "$clients"); do user_link "$i"; done
}

user_link() { # client host i's link: one net-link.py of its own (its seed the i-th after --seed)
  local i="$1" ready="$state/ready$1" log="$state/link$1.log" bps; bps=$(awk -v m="$rate" 'BEGIN { printf "%.0f", m * 1e6 }')
  rm -f "$ready" "$(stats_of "$i")"
  # The devices are made in this namespace by the link's own process, then moved into the hosts.
  # Real-time priority where allowed: a link that waits for a CPU would add the machine's load to its delay.
  local rt=(); if command -v chrt >/dev/null && chrt -f 10 true 2>/dev/null; then rt=(chrt -f 10); fi
  setsid "${rt[@]}" python3 "$here/net-link.py" --dev-a "$(dev_c "$i")" --dev-b "$(dev_s "$i")" --delay "$(half "$rtt")" --jitter "$jitter" \
    --loss "$loss" --rate "$bps" --reorder "$reorder" --seed "$((seed + i - 1))" --stats "$(stats_of "$i")" >"$ready" 2>"$log" </dev/null &
  echo $! >"$state/link$i.pid"
  for _ in $(seq 100); do grep -q ready "$ready" 2>/dev/null && break; sleep 0.05; done
  grep -q ready "$ready" 2>/dev/null || die "the user-space link did not start: $(cat "$log")"
  ip link set "$(dev_c "$i")" netns "$(client_ns "$i")"
  ip link set "$(dev_s "$i")" netns "$server"
  # A TUN device is point to point: each host reaches the other through it.
  address "$i"
}

up() {
  need_root
  down
  local why=""
  if [ "$link" != user ]; then why=$(netem_missing); fi
  if [ "$link" = netem ] && [ -n "$why" ]; then die "--link netem: $why"; fi
  if [ "$link" = auto ] && [ -n "$why" ]; then
    echo "test-hosts: $why; the hosts are joined by the user-space link (scripts/net-link.py) instead" >&2
  fi
  if [ -z "$why" ] && [ "$link" != user ]; then link=netem; up_netem; else link=user; up_user; fi
  local i names="" each=""
  for i in $(seq "$clients"); do names+="${names:+, }$(client_ns "$i") ($(addr_c "$i"))"; done
  [ "$clients" = 1 ] || each=" (a link each)"
  echo "test-hosts: $names <-> $server ($server_addr) over $link$each: rtt ${rtt} ms, jitter ±${jitter} ms, loss ${loss} %, rate ${rate} Mbit/s, reorder ${reorder} %" >&2
  export TEST_HOSTS_CLIENT="$client" TEST_HOSTS_SERVER="$server" TEST_HOSTS_CLIENT_ADDR="$client_addr" \
    TEST_HOSTS_SERVER_ADDR="$server_addr" TEST_HOSTS_LINK="$link" TEST_HOSTS_STATS="$state/stats.json" TEST_HOSTS_CLIENTS="$clients"
  for i in $(seq "$clients"); do
    export "TEST_HOSTS_CLIENT$i=$(client_ns "$i")" "TEST_HOSTS_CLIENT_ADDR$i=$(addr_c "$i")" "TEST_HOSTS_STATS$i=$(stats_of "$i")"
  done
}

case "$cmd" in
  probe)
    need_root
    why=$(netem_missing)
    if [ -z "$why" ]; then echo "netem: tc netem works here"; else echo "user: $why; scripts/net-link.py would join the hosts"; fi
    ;;
  up)
    up
    env | grep '^TEST_HOSTS_' | sed 's/^/export /'
    ;;
  down)
    need_root
    down
    ;;
  run)
    [ $# -gt 0 ] || die "run: no COMMAND after --"
    trap down EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    up
    # COMMAND runs in the background so that a signal reaches the traps at once (a shell runs them
    # only when its foreground command returns); they stop it, and the EXIT trap removes the hosts.
    "$@" &
    child=$!
    trap 'kill -TERM "$child" 2>/dev/null; exit 130' INT
    trap 'kill -TERM "$child" 2>/dev/null; exit 143' TERM
    code=0
    wait "$child" || code=$?
    exit "$code"
    ;;
  *) usage ;;
esac
