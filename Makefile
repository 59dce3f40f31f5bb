# The two commands a new user runs: `make demo` and `make test`.
PY ?= $(shell scripts/python.sh)
VENV := .venv
# The virtualenv lives outside the tree (one per checkout and interpreter) and .venv links to it,
# so tools that walk the sources do not walk site-packages too.
VENV_HOME ?= $(HOME)/.cache/kubus/venv-$(shell echo "$(CURDIR) $(PY)" | cksum | cut -d' ' -f1)
BIN := $(VENV)/bin

.PHONY: demo test test-slow bench venv broker nettools containers images proto down clean

demo: venv broker nettools containers  ## set everything up and start the demo cluster
	scripts/demo.sh

test: venv broker nettools containers  ## the default test run (unit, integration, e2e) against a real broker
	scripts/test.sh  # two runs side by side: the host-network tests one at a time, every other test beside them

test-slow: venv broker nettools containers  ## chaos and scale runs
	$(BIN)/pytest -q -m slow

bench: venv broker
	$(BIN)/python -m bench.store --clients 1 64 --writes 5000 --vs-etcd

venv: $(VENV_HOME)/bin/kubus
	@test "$$(readlink $(VENV))" = "$(VENV_HOME)" || ln -sfn $(VENV_HOME) $(VENV)

$(VENV_HOME)/bin/kubus: setup.cfg pyproject.toml
	test -x $(VENV_HOME)/bin/python || $(PY) -m venv $(VENV_HOME)
	$(VENV_HOME)/bin/pip install -q -e '.[test]'
	touch $@

proto:  ## CRI's Python stubs from the project's .proto (committed; a unit test checks they match)
	$(BIN)/python -m grpc_tools.protoc -I. --python_out=. --grpc_python_out=. --pyi_out=. actors/kubelet/cri/api/cri.proto

broker:
	scripts/broker.sh

nettools:  ## ip and nft for pod network namespaces and the proxy's nftables mode (root: from the OS packages)
	@scripts/nettools.sh

containers:  ## containerd, runc, the CNI plugins, docker-registry, busybox-static, catatonit (root: from the OS packages)
	@scripts/containers.sh

images: venv containers  ## the local registry (started unless one answers) and kubus's images built and pushed to it
	$(BIN)/kubus image registry
	$(BIN)/kubus image build

down:  ## stop the demo cluster, and the demo pods' processes (containers outlive a kubelet by design)
	@if [ -f .kubus/demo.pid ]; then kill $$(cat .kubus/demo.pid) 2>/dev/null; rm -f .kubus/demo.pid; echo "stopped the demo cluster"; fi
	@# [a] keeps pkill from matching this very shell's command line
	@pkill -f -- "-m [a]ctors.kubelet.shim $(CURDIR)/.kubus/data/kubelet/" && echo "stopped the demo pods' processes" || true
	@$(BIN)/python -m actors.kubelet.cri.teardown $${KUBUS_DATA_DIR:-.kubus/data}  # the nodes' containerds and their pods
	@$(BIN)/python -m actors.kubelet.podnet  # the pods' network namespaces and bridge, if it made any
	@$(BIN)/kubus image registry --stop 2>/dev/null || true  # the local registry `kubus up` started
	@$(BIN)/python -m actors.proxy.leftovers  # the service route and nftables table of a proxy that was killed

clean: down
	rm -rf $$(readlink -f $(VENV)) $(VENV) .kubus *.egg-info
