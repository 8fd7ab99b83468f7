#!/usr/bin/python3
"""What a user would otherwise run instead of `tsb serve`: FastAPI + uvicorn
(Debian's python3-fastapi, python3-uvicorn) serving the same repository's
TorchScript modules with torch.jit.load, on the same Open Inference Protocol
REST endpoints and bodies that bench/serve_bench.py sends:

  GET  /v2/health/live, /v2/health/ready
  POST /v2/models/NAME[/versions/V]/infer   JSON tensors in and out; an input
       with parameters.tsbridge_json (tsbridge's typed JSON, docs/json.md)
       is read as tsb serve reads it (a Dict[str, Tensor], say), and a
       result that is not a tensor comes back the same way.

Generous to the baseline: the body is parsed with the standard json module
into plain dicts (no pydantic request model, as KServe's Python server has),
the endpoint is `async def` (the call runs on the event loop, no hop to a
thread pool), uvloop when installed (uvicorn's default then), no access log.
Each worker process loads every model and sets torch.set_num_threads to
--threads (1 unless told).

  /usr/bin/python3 bench/serve_fastapi_baseline.py REPOSITORY [--port 0] [--workers 2] [--threads 1]

Prints `listening on 127.0.0.1:PORT` once the socket is bound; SIGTERM stops it.
"""
import argparse
import json
import os
import socket
import sys

REPOSITORY_ENV = "TSB_FASTAPI_REPOSITORY"
THREADS_ENV = "TSB_FASTAPI_THREADS"

# The protocol's tensor datatypes and torch's dtypes (as docs/serve.md maps them).
DATATYPES = {"BOOL": "bool", "UINT8": "uint8", "INT8": "int8", "INT16": "int16",
             "INT32": "int32", "INT64": "int64", "FP16": "float16", "FP32": "float32",
             "FP64": "float64", "BF16": "bfloat16"}


def make_app(repository, threads):
    import torch
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, Response

    torch.set_num_threads(threads)
    to_dtype = {k: getattr(torch, v) for k, v in DATATYPES.items()}
    to_datatype = {v: k for k, v in to_dtype.items()}

    # {name: {version: module}}: every REPOSITORY/NAME/VERSION/model.pt.
    models = {}
    for name in sorted(os.listdir(repository)):
        for version in sorted(os.listdir(os.path.join(repository, name))):
            path = os.path.join(repository, name, version, "model.pt")
            if version.isdigit() and os.path.exists(path):
                models.setdefault(name, {})[version] = torch.jit.load(path)

    def from_typed_json(value):
        if isinstance(value, dict) and "dtype" in value and "shape" in value and "data" in value:
            return torch.tensor(value["data"], dtype=getattr(torch, value["dtype"])).reshape(
                value["shape"])
        if isinstance(value, dict):
            return {k: from_typed_json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [from_typed_json(v) for v in value]
        return value

    def typed_json(value):
        if isinstance(value, torch.Tensor):
            return {"dtype": str(value.dtype)[6:], "shape": list(value.shape),
                    "data": value.flatten().tolist()}
        if isinstance(value, dict):
            return {k: typed_json(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [typed_json(v) for v in value]
        return value

    def output(name, value):
        if isinstance(value, torch.Tensor) and value.dtype in to_datatype:
            return {"name": name, "datatype": to_datatype[value.dtype], "shape": list(value.shape),
                    "data": value.flatten().tolist()}
        return {"name": name, "datatype": "JSON", "shape": [0], "data": [],
                "parameters": {"tsbridge_json": typed_json(value)}}

    def error(status, message):
        return JSONResponse({"error": message}, status_code=status)

    app = FastAPI()

    @app.get("/v2/health/live")
    async def live():
        return {"live": True}

    @app.get("/v2/health/ready")
    async def ready():
        return {"ready": True}

    async def infer(request, name, version):
        versions = models.get(name)
        if not versions or (version is not None and version not in versions):
            return error(404, f"no model {name}" + (f" version {version}" if version else ""))
        if version is None:
            version = max(versions, key=int)
        try:
            body = json.loads(await request.body())
            arguments = {}
            for item in body["inputs"]:
                parameters = item.get("parameters") or {}
                if "tsbridge_json" in parameters:
                    arguments[item["name"]] = from_typed_json(parameters["tsbridge_json"])
                else:
                    arguments[item["name"]] = torch.tensor(
                        item["data"], dtype=to_dtype[item["datatype"]]).reshape(item["shape"])
            with torch.no_grad():
                result = versions[version](**arguments)
        except Exception as e:  # a bad request is the protocol's error body
            return error(400, f"{type(e).__name__}: {e}")
        if isinstance(result, tuple):
            outputs = [output(f"OUTPUT__{i}", v) for i, v in enumerate(result)]
        else:
            outputs = [output("OUTPUT__0", result)]
        answer = {"model_name": name, "model_version": version, "outputs": outputs}
        if "id" in body:
            answer["id"] = body["id"]
        return Response(json.dumps(answer, separators=(",", ":")), media_type="application/json")

    @app.post("/v2/models/{name}/infer")
    async def infer_latest(name: str, request: Request):
        return await infer(request, name, None)

    @app.post("/v2/models/{name}/versions/{version}/infer")
    async def infer_version(name: str, version: str, request: Request):
        return await infer(request, name, version)

    return app


def app():
    """uvicorn's factory in each worker process (--workers > 1 spawns them)."""
    return make_app(os.environ[REPOSITORY_ENV], int(os.environ.get(THREADS_ENV, "1")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository")
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="uvicorn's processes")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads per process")
    args = parser.parse_args()
    import uvicorn

    os.environ[REPOSITORY_ENV] = os.path.abspath(args.repository)
    os.environ[THREADS_ENV] = str(args.threads)
    # The socket bound here, so that port 0 is known before the workers start.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.address, args.port))
    sock.set_inheritable(True)
    print(f"listening on {args.address}:{sock.getsockname()[1]}", flush=True)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    uvicorn.run("serve_fastapi_baseline:app", factory=True, fd=sock.fileno(),
                workers=args.workers, access_log=False, log_level="warning")


if __name__ == "__main__":
    main()
