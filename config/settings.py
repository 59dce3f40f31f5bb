"""Process settings, read from `KUBUS_*` environment variables."""
from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from config.urls import first


API_SERVICE_PORT = 443  # the `kubernetes` Service's port, and its endpoint's
BROKER_SERVICE_PORT = 5672  # `kube-system/kubus-broker`'s port, where the gateway relays pods to the broker


class Settings(BaseSettings):
    """Settings shared by every actor and client of one cluster."""

    model_config = SettingsConfigDict(env_prefix="KUBUS_", frozen=True, extra="ignore")

    amqp_url: str = "amqp://guest:guest@127.0.0.1:5672/"
    cluster: str = Field("kubus", pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)
    data_dir: Path = Path(".kubus/data")
    max_message_bytes: int = Field(1 << 20, ge=4096)
    max_object_bytes: int = Field(512 << 10, ge=1024)  # an object's encoding; larger is 413 RequestEntityTooLarge
    max_depth: int = Field(100, ge=8)  # nesting of maps and lists a decoded body may have
    heartbeat_s: int = Field(30, ge=1)  # AMQP heartbeat; the broker drops a silent connection after two
    request_timeout_s: float = Field(10.0, gt=0)
    prefetch: int = Field(256, ge=1)
    durable_commands: bool = False  # wire v2: durability lives in the store's database; callers retry
    store_fsync: bool = True
    bookmark_interval_s: float = Field(2.0, gt=0)
    bookmark_sweep_s: float = Field(60.0, gt=0)
    log_retention: int = Field(100_000, ge=1000)
    dedupe_window_s: float = Field(600.0, gt=0)
    dedupe_max_bytes: int = Field(64 << 20, ge=1 << 20)  # first replies kept to answer retries, at most
    dead_letter_max_length: int = Field(10_000, ge=1)  # `{c}.dead` keeps the newest this many
    queue_max_bytes: int = Field(64 << 20, ge=1 << 20)  # an event queue's bound; overflow is dead-lettered
    request_queue_max_length: int = Field(50_000, ge=1)  # `{c}.apiserver` and `{c}.store`; more is refused
    store_replication: Literal["off", "stream"] = "off"  # stream: every batch through `{c}.store.wal` (store/replicated)
    wal_max_bytes: int = Field(1 << 30, ge=1 << 20)  # the WAL stream's retention
    wal_segment_bytes: int = Field(64 << 20, ge=1 << 16)
    queue_type: Literal["classic", "quorum"] = "classic"  # durable queues; quorum on a RabbitMQ cluster
    log_level: str = "info"
    metrics_port: int = Field(0, ge=0, le=65535)  # Prometheus `/metrics` on 127.0.0.1:<port>; 0: off
    # the front door (contract 5)
    admin_url: str = "amqp://guest:guest@127.0.0.1:5672/"  # the broker administrator `kubus bootstrap` acts as
    secrets_dir: Path = Path(".kubus/secrets")  # `<cluster>.key`: the secret every derived password comes from
    users_file: Path | None = None  # people and their groups (the spirit of Kubernetes' static token file)
    audit_log: Path | None = None  # an apiserver's audit log (JSON lines); none when unset
    audit_policy: Path | None = None  # audit.k8s.io/v1 Policy; the shipped default when unset
    max_watches_per_user: int = Field(100, ge=1)  # watch queues one apiserver keeps for one person; more is 429
    max_watch_keys_per_user: int = Field(1000, ge=1)  # their binding keys, all watches together
    # networking (Kubernetes' kubeadm defaults)
    service_cidr: str = Field("10.96.0.0/12", pattern=r"^\d+\.\d+\.\d+\.\d+/\d+$")  # ClusterIPs come from here
    service_node_port_range: str = Field("30000-32767", pattern=r"^\d+-\d+$")
    cluster_cidr: str = Field("10.244.0.0/16", pattern=r"^\d+\.\d+\.\d+\.\d+/\d+$")  # nodes' podCIDRs
    node_cidr_mask_size: int = Field(24, ge=8, le=30)
    cluster_domain: str = "cluster.local"
    cluster_dns: str = "10.96.0.10"  # the nameserver pods' resolv.conf names (kube-dns's ClusterIP in kubeadm)
    pod_network: Literal["host", "namespaces"] = "host"  # namespaces: a network namespace per pod (root, ip)
    proxy_mode: Literal["auto", "userspace", "nftables"] = "auto"  # auto: nftables with pod namespaces, if `nft` is here
    dns_address: str = "127.0.0.1:1053"  # where a DNS actor answers (UDP and TCP)
    dns_upstream: str = ""  # host:port names outside the cluster domain are forwarded to; empty: REFUSED
    dns_ttl: int = Field(5, ge=0, le=3600)  # CoreDNS's default (kubeadm's Corefile says 30)
    ingress_address: str = "127.0.0.1:8080"  # where an ingress controller serves HTTP
    ingress_class: str = "kubus"  # the IngressClass it serves (and Ingresses without a class, if it is the default)
    ingress_controller: str = "kubus.io/ingress-controller"  # that class's spec.controller
    ingress_class_create: bool = True  # with no IngressClass of that name, the controller makes it (the default class)
    gateway_address: str = "127.0.0.1:6443"  # where a gateway serves the Kubernetes REST API (HTTPS)
    gateway_watch_window: int = Field(5000, ge=1)  # changes a gateway keeps per watch cache to resume watches from
    broker_relay_max_connections: int = Field(512, ge=1)  # pods' broker connections the gateway relays at once
    # autoscaling (kube-controller-manager's --horizontal-pod-autoscaler-* flags; the kubelet's resource metrics)
    hpa_sync_period_s: float = Field(15.0, gt=0)  # how often each HPA is looked at
    hpa_downscale_window_s: int = Field(300, ge=0)  # scale-down stabilization when the HPA has no behavior
    hpa_tolerance: float = Field(0.1, ge=0)
    metrics_resolution_s: float = Field(15.0, gt=0)  # how often a kubelet sends its nodes' usage (metrics.k8s.io)
    # containers' logs (the kubelet's containerLogMaxSize and containerLogMaxFiles, Kubernetes' defaults)
    container_log_max_size: int = Field(10 << 20, ge=1024)  # bytes a log file reaches before it is rotated
    container_log_max_files: int = Field(5, ge=2)  # a container's log files kept, the current one included
    container_log_monitor_interval: float = Field(10.0, gt=0)  # seconds between cri log rotation rounds
    eviction_monitoring_interval: float = Field(10.0, gt=0)  # seconds between the eviction manager's rounds
    # the cri runtime (docs/containers.md): a node's kubelet starts its own containerd unless given a socket
    cri_endpoint: str = ""  # KUBUS_CRI_ENDPOINT: the unix socket of a containerd that is already running
    sandbox_image: str = "kubus/pause:catatonit-0.1.7"  # each pod's pause container (from the local registry)
    # the kubelet's allowedUnsafeSysctls (comma-separated, names or `prefix*`): beyond the safe set, what a cri
    # node's pods may set
    allowed_unsafe_sysctls: str = ""
    # images (docs/images.md): the local registry `make images` and `kubus image` push to
    registry_url: str = Field("http://127.0.0.1:5000", pattern=r"^https?://[^/\s]+/?$")
    registry_dir: Path | None = None  # its storage, config, pid and log; `<data_dir>/registry` when unset
    # further registries (comma-separated http(s)://host:port) a node's containerd pulls from as they are,
    # e.g. one that asks for logins (imagePullSecrets); every other registry's pulls go to registry_url
    registry_hosts: str = ""
    # after the local registry, pull from the image's own registry (docker.io: registry-1.docker.io): public
    # images pull where there is internet; off, a missing image fails at once (docs/images.md)
    registry_fallback: bool = False

    # the gateway's logins (docs/security.md, "Logins at the gateway")
    gateway_login_ttl_s: float = Field(60.0, gt=0, le=60)  # a token's login is trusted this long, then checked again
    gateway_refused_ttl_s: float = Field(10.0, gt=0, le=60)  # a refused token is 401 this long without asking again
    gateway_login_timeout_s: float = Field(3.0, gt=0)  # a login no broker node answered by then is 503
    gateway_user_failures: int = Field(5, ge=1)  # refused logins of one user before it waits
    gateway_source_failures: int = Field(20, ge=1)  # refused logins from one client address before it waits
    gateway_backoff_s: float = Field(1.0, gt=0)  # the first wait; each further refusal doubles it
    gateway_backoff_max_s: float = Field(300.0, gt=0)  # the longest wait; a key this quiet is forgotten

    @model_validator(mode="after")
    def _objects_fit_messages(self) -> "Settings":
        if self.max_object_bytes > self.max_message_bytes // 2:
            raise ValueError(f"max_object_bytes ({self.max_object_bytes}) must be at most half of max_message_bytes "
                             f"({self.max_message_bytes}): an event, a reply and a snapshot chunk carry one whole")
        return self

    @property
    def amqp_user(self) -> str:
        return unquote(urlparse(first(self.amqp_url)).username or "guest")

    @property
    def api_service_ip(self) -> str:
        """The `kubernetes` Service's ClusterIP (the first address of the service range); the gateway listens
        on it too (API_SERVICE_PORT), so pods reach the API there (docs/security.md, "In-cluster access")."""
        return str(ipaddress.IPv4Network(self.service_cidr, strict=False).network_address + 1)

    @property
    def broker_service_ip(self) -> str:
        """`kube-system/kubus-broker`'s ClusterIP (the service range's second address): the gateway relays
        pods' connections there to the broker (BROKER_SERVICE_PORT; docs/security.md, "In-cluster access")."""
        return str(ipaddress.IPv4Network(self.service_cidr, strict=False).network_address + 2)

    @property
    def secret_file(self) -> Path:
        return self.secrets_dir / f"{self.cluster}.key"

    @property
    def gateway_tls_dir(self) -> Path:
        """The gateway's CA and serving certificate (actors/gateway/tls.py makes them); `ca.crt` is the
        cluster's root CA that kube-root-ca.crt publishes."""
        return self.secrets_dir / f"{self.cluster}-gateway"

    @property
    def encryption_file(self) -> Path:
        """The store's EncryptionConfiguration (config/encryption.py), beside the cluster's secret."""
        return self.secrets_dir / f"{self.cluster}.encryption.yaml"

    @property
    def registry_root(self) -> Path:
        return self.registry_dir or self.data_dir / "registry"

    def with_(self, **changes) -> "Settings":
        """A copy with some fields changed (settings are frozen)."""
        return self.model_copy(update=changes)


@lru_cache(maxsize=1)
def load_settings() -> Settings:
    return Settings()
