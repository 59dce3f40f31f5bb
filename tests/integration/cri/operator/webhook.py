"""The validating webhook the proof runs in a pod behind a Service: HTTPS with the certificate the test
made for `widget-guard.<namespace>.svc` (mounted from a Secret), refusing a Widget whose color is
`forbidden` with its own message, allowing everything else."""
import json
import ssl
from http.server import BaseHTTPRequestHandler, HTTPServer


class Review(BaseHTTPRequestHandler):
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        request = review["request"]
        color = ((request.get("object") or {}).get("spec") or {}).get("color")
        response = {"uid": request["uid"], "allowed": color != "forbidden"}
        if color == "forbidden":
            response["status"] = {"code": 403, "reason": "Forbidden",
                                  "message": f"widget {request['name']}: the color forbidden is not allowed"}
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = HTTPServer(("0.0.0.0", 8443), Review)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain("/tls/tls.crt", "/tls/tls.key")
server.socket = context.wrap_socket(server.socket, server_side=True)
print("serving on 8443", flush=True)
server.serve_forever()
