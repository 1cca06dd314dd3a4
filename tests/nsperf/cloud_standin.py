#!/usr/bin/env python3
"""cloud_standin.py - a stand-in instance metadata service for `nsperf env`'s tests.

    cloud_standin.py KIND LOG        (KIND: azure aws gcp gcp-noflavor slow garbage huge)

Listens on 169.254.169.254:80 (the test runs it inside a network namespace of its own that holds
that address) and answers ONLY what the cloud documents, refusing the rest as the cloud does:
  azure  GET /metadata/instance?api-version=... with "Metadata: true" (else 400), JSON document
  aws    IMDSv2: PUT /latest/api/token with X-aws-ec2-metadata-token-ttl-seconds (1..21600, else
         400) gives a token; GET /latest/meta-data/<path> only with that token (else 401)
  gcp    GET /computeMetadata/v1/instance/{zone,machine-type,id} with "Metadata-Flavor: Google"
         (else 403), answers carrying "Metadata-Flavor: Google"
  gcp-noflavor  gcp, but its answers lack the Metadata-Flavor header (not Google's server)
  slow   accepts, reads, then sends one byte of a valid answer every 0.2 s
  garbage  answers every request with bytes that are not HTTP
  huge   answers 200 with a never-ending body (past nsperf's cap)
Every request line is appended to LOG (one line: METHOD PATH STATUS), so that the test can
count what nsperf sent. Prints "ready" on stdout once listening.
"""
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KIND, LOG = sys.argv[1], sys.argv[2]
ADDR = ("169.254.169.254", 80)
TOKEN = "AQAEAFakeTokenForTheStandIn0123456789abcdef=="

AZURE_DOC = {
    "compute": {"azEnvironment": "AzurePublicCloud", "location": "westus3", "name": "zone2-vm",
                "vmId": "02aab8a4-74ef-476e-8182-f6d2ba4166a6", "vmSize": "Standard_D4s_v5",
                "zone": "2", "osType": "Linux", "tagsList": []},
    "network": {"interface": [{"ipv4": {"ipAddress": [{"privateIpAddress": "10.0.0.5"}]}}]},
}
AWS_META = {
    "placement/availability-zone": "us-east-1a",
    "placement/availability-zone-id": "use1-az6",
    "placement/region": "us-east-1",
    "instance-type": "c6in.xlarge",
    "instance-id": "i-0abc123def4567890",
}
GCP_META = {
    "zone": "projects/123456789012/zones/us-central1-b",
    "machine-type": "projects/123456789012/machineTypes/n2-standard-4",
    "id": "4520031799277581759",
}


def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, ctype="text/plain", extra=()):
        log(f"{self.command} {self.path} {status}")  # before the answer lets nsperf go on
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        getattr(self, "get_" + KIND.replace("-", "_"))()

    def do_PUT(self):
        if KIND == "aws" and self.path == "/latest/api/token":
            ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", "")
            if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
                return self.answer(400, "Bad Request")
            return self.answer(200, TOKEN)
        self.answer(404 if KIND == "aws" else 405, "Not Found")

    def get_azure(self):
        path, _, query = self.path.partition("?")
        if path != "/metadata/instance":
            return self.answer(404, "Not Found")
        if self.headers.get("Metadata") != "true":
            return self.answer(400, json.dumps({"error": "Bad request. Required metadata header "
                                                         "not specified"}), "application/json")
        if not query.startswith("api-version="):
            return self.answer(400, json.dumps({"error": "Bad request. api-version was not "
                                                         "specified"}), "application/json")
        self.answer(200, json.dumps(AZURE_DOC), "application/json; charset=utf-8")

    def get_aws(self):
        prefix = "/latest/meta-data/"
        if not self.path.startswith(prefix) or self.path[len(prefix):] not in AWS_META:
            return self.answer(404, "Not Found")
        if self.headers.get("X-aws-ec2-metadata-token") != TOKEN:
            return self.answer(401, "Unauthorized")  # IMDSv2 required: no IMDSv1 answers
        self.answer(200, AWS_META[self.path[len(prefix):]])

    def get_gcp(self, flavor=True):
        prefix = "/computeMetadata/v1/instance/"
        if not self.path.startswith(prefix) or self.path[len(prefix):] not in GCP_META:
            return self.answer(404, "Not Found")
        extra = [("Metadata-Flavor", "Google")] if flavor else []
        if self.headers.get("Metadata-Flavor") != "Google":
            return self.answer(403, "Missing Metadata-Flavor:Google header.", extra=extra)
        self.answer(200, GCP_META[self.path[len(prefix):]], "application/text", extra)

    def get_gcp_noflavor(self):
        self.get_gcp(flavor=False)


def raw_server(serve):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(ADDR)
    s.listen(16)
    print("ready", flush=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def serve_slow(c):
    try:
        c.recv(4096)
        log("slow request")
        doc = json.dumps(AZURE_DOC).encode()
        answer = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(doc), doc)
        for i in range(len(answer)):
            c.send(answer[i:i + 1])
            time.sleep(0.2)
    except OSError:
        pass
    c.close()


def serve_garbage(c):
    try:
        c.recv(4096)
        log("garbage request")
        c.send(b"\x00\xff\r\n\r\nHTTP/9 nonsense\r\n" + os.urandom(2000) + b"\r\n\r\n")
    except OSError:
        pass
    c.close()


def serve_huge(c):
    try:
        c.recv(4096)
        log("huge request")
        c.send(b"HTTP/1.1 200 OK\r\nMetadata-Flavor: Google\r\n\r\n")
        while True:
            c.send(b"x" * 65536)
    except OSError:
        pass
    c.close()


if __name__ == "__main__":
    open(LOG, "w").close()
    if KIND in ("slow", "garbage", "huge"):
        raw_server(globals()["serve_" + KIND])
    server = ThreadingHTTPServer(ADDR, Handler)
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()
