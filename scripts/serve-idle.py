#!/usr/bin/env python3
"""What 1,000 idle players cost argus serve (issues 23 and 34): N connections sign on
and stay silent (AT_ONCE games under way, 1 unless given, their players silent at
600+0), then the referee's CPU over 10 s, its threads and descriptors (Linux /proc).

    scripts/serve-idle.py ARGUS PLAYERS [AT_ONCE]   (e.g. target/release/argus 1000 256)
"""
import os
import socket
import subprocess
import sys
import tempfile
import time
argus=sys.argv[1]; n=int(sys.argv[2]); at_once=sys.argv[3] if len(sys.argv) > 3 else "1"
s=socket.socket(); s.bind(("127.0.0.1",0)); port=s.getsockname()[1]; s.close()
args=[argus,"serve","--concurrency",at_once,"--tc","600+0","--listen",f"127.0.0.1:{port}","--max-clients",str(n+10),"--unattended","--out",tempfile.mkdtemp() + "/event"]
for i in range(1,n+1): args+=["--player",f"P{i}"]
p=subprocess.Popen(["sh","-c",'ulimit -Sn 4096; exec "$0" "$@"']+args,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
time.sleep(1)
START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
socks=[]
for i in range(1,n+1):
    c=socket.create_connection(("127.0.0.1",port)); c.sendall(f'{START} refreq sign_on; tcsi "x" "P{i}";\n'.encode()); socks.append(c); time.sleep(0.002)
time.sleep(3)
def cpu(pid):
    f=open(f"/proc/{pid}/stat").read().split(")")[1].split(); return (int(f[11])+int(f[12]))/os.sysconf("SC_CLK_TCK")
threads=len(os.listdir(f"/proc/{p.pid}/task")); fds=len(os.listdir(f"/proc/{p.pid}/fd"))
c0=cpu(p.pid); time.sleep(10); c1=cpu(p.pid)
print(f"{n} idle players, {at_once} game(s) under way: {100*(c1-c0)/10:.1f} % of a core over 10 s, {threads} threads, {fds} descriptors")
p.kill()
