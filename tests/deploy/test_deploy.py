"""Checks of deploy/: the files parse, agree with each other and with the real server.

Run by ctest (tests/deploy/CMakeLists.txt), one entry per TestCase class. Environment:
SHARDPLAN_SOURCE_DIR, SHARDPLAN_BUILD_DIR, SHARDPLAN_SERVER_BINARY, SHARDPLAN_CLI, PROMTOOL,
PROMETHEUS; PYTHONPATH holds the Python client and tests/integration/python.
"""

import fnmatch
import glob
import hashlib
import json
import logging
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

import yaml

import shardplan
from server_fixture import ServerProcess, _die_with_parent

SOURCE = os.environ.get("SHARDPLAN_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(SOURCE, "deploy")
BUILD = os.environ.get("SHARDPLAN_BUILD_DIR", os.path.join(SOURCE, "build"))
PROMTOOL = os.environ.get("PROMTOOL") or shutil.which("promtool")
PROMETHEUS = os.environ.get("PROMETHEUS") or shutil.which("prometheus")

# Metrics a server shows only once something happened that the plain exercise() does not do;
# each is checked by the test named here instead.
EXERCISED_ELSEWHERE = {"shardplan_auth_rejections_total": "test_auth_rejections_are_exposed"}

SMALL_TASK = {
    "tables": [{"name": f"t{i}", "rows": 1000 * (i + 1), "dim": 16, "pooling_factor": 2.0 + i}
               for i in range(4)],
    "topology": {"num_devices": 2, "device_memory_gib": 16},
}


def deploy_path(*parts):
    return os.path.join(DEPLOY, *parts)


def load_yaml(path):
    with open(path) as f:
        return [doc for doc in yaml.safe_load_all(f) if doc is not None]


def load_json(path):
    with open(path) as f:
        return json.load(f)


def server_binary():
    return os.environ["SHARDPLAN_SERVER_BINARY"]


_settings = None


def server_settings():
    """The setting names the server binary knows, from its --help."""
    global _settings
    if _settings is None:
        help_text = subprocess.run([server_binary(), "--help"], capture_output=True, text=True,
                                   check=True).stdout
        _settings = set(re.findall(r"^  --(\w+) ", help_text, re.M))
        assert "address" in _settings, help_text
    return _settings


def check_setting_names(test, names, where):
    """Fails for a setting the server does not know; the known ones."""
    known = server_settings()
    for name in sorted(set(names) - known):
        test.fail(f"{where}: unknown setting \"{name}\" (shardplan-server --help)")
    return [name for name in names if name in known]


def flag_names(args):
    """--name of "--name=value" and "--name value" in an argument list."""
    return [arg[2:].split("=", 1)[0] for arg in args if arg.startswith("--")]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def port_of(address):
    return int(address.rsplit(":", 1)[1])


# --- the manifests -------------------------------------------------------------------------

def k8s_docs(directory):
    docs = []
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        if os.path.basename(path) != "kustomization.yaml":
            docs.extend(load_yaml(path))
    return docs


def find(docs, kind, name=None):
    found = [d for d in docs if d.get("kind") == kind and
             (name is None or d["metadata"]["name"] == name)]
    if not found:
        raise AssertionError(f"no {kind} {name or ''} in the manifests")
    return found[0]


def matches(selector, labels):
    """Whether a label selector's matchLabels (the only form deploy/ uses) select `labels`."""
    wanted = selector.get("matchLabels", {})
    return bool(wanted) and all(labels.get(k) == v for k, v in wanted.items())


def configmap_config(docs):
    return json.loads(find(docs, "ConfigMap", "shardplan-config")["data"]["config.json"])


def rendered(directory):
    """`kubectl kustomize` output, or None where kubectl is not installed (not a Debian package)."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    out = subprocess.run([kubectl, "kustomize", directory], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"kubectl kustomize {directory}:\n{out.stderr}")
    return [d for d in yaml.safe_load_all(out.stdout) if d is not None]


def promql_of_alerts():
    """(expr, recorded names) of deploy/prometheus/alerts.yml."""
    exprs, recorded = [], set()
    for group in load_yaml(deploy_path("prometheus", "alerts.yml"))[0]["groups"]:
        for rule in group["rules"]:
            exprs.append(rule["expr"])
            if "record" in rule:
                recorded.add(rule["record"])
    return exprs, recorded


def promql_of_dashboard():
    dashboard = load_json(deploy_path("grafana", "shardplan-dashboard.json"))
    exprs = [target["expr"] for panel in dashboard["panels"]
             for target in panel.get("targets", [])]
    exprs += [var["definition"] for var in dashboard["templating"]["list"]
              if var.get("type") == "query"]
    return exprs


def shardplan_metric_names(exprs):
    return {name for expr in exprs for name in re.findall(r"\b(shardplan_[a-z0-9_]+)\b", expr)}


class FilesTest(unittest.TestCase):
    def test_every_yaml_and_json_file_parses(self):
        files = 0
        for root, _, names in os.walk(DEPLOY):
            for name in names:
                path = os.path.join(root, name)
                with self.subTest(path=os.path.relpath(path, SOURCE)):
                    if name.endswith((".yml", ".yaml")):
                        self.assertTrue(load_yaml(path))
                        files += 1
                    elif name.endswith(".json"):
                        self.assertIsInstance(load_json(path), dict)
                        files += 1
        self.assertGreaterEqual(files, 15)
        self.assertIsInstance(configmap_config(k8s_docs(deploy_path("k8s", "base"))), dict)

    def test_kustomizations_list_existing_files(self):
        for kustomization in glob.glob(deploy_path("k8s", "**", "kustomization.yaml"),
                                       recursive=True):
            directory = os.path.dirname(kustomization)
            spec = load_yaml(kustomization)[0]
            for entry in spec.get("resources", []) + [p["path"] for p in spec.get("patches", [])
                                                      if "path" in p]:
                with self.subTest(kustomization=kustomization, entry=entry):
                    self.assertTrue(os.path.exists(os.path.join(directory, entry)))

    def check_deployment(self, docs, where):
        """Probes, ports, config, volumes and the drain budget of one set of manifests."""
        deployment = find(docs, "Deployment", "shardplan")
        pod = deployment["spec"]["template"]["spec"]
        container = next(c for c in pod["containers"] if c["name"] == "shardplan")
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        config = configmap_config(docs)

        # The probes reach the plaintext health port the config opens.
        self.assertEqual(ports["health"], port_of(config["health_address"]), where)
        self.assertEqual(ports["grpc"], port_of(config["address"]), where)
        self.assertEqual(ports["metrics"], port_of(config["metrics_address"]), where)
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            self.assertEqual(container[probe]["grpc"]["port"], ports["health"], f"{where} {probe}")
        liveness = container["livenessProbe"]
        self.assertGreater(liveness["periodSeconds"] * liveness["failureThreshold"],
                           config["drain_timeout_s"], f"{where}: liveness trips during a drain")

        # SIGKILL only after preStop + drain + the server's cancel grace (5 s) + metrics stop.
        pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("exec", {})
        sleep = float(pre_stop["command"][-1]) if pre_stop.get("command", [""])[0] == "sleep" else 0
        self.assertGreaterEqual(pod["terminationGracePeriodSeconds"],
                                sleep + config["drain_timeout_s"] + 5 + 2, where)

        # Non-root, read-only root filesystem, nothing to escalate to.
        self.assertTrue(pod["securityContext"]["runAsNonRoot"], where)
        self.assertNotEqual(pod["securityContext"]["runAsUser"], 0, where)
        for c in pod["containers"] + pod.get("initContainers", []):
            self.assertTrue(c["securityContext"]["readOnlyRootFilesystem"], f"{where} {c['name']}")
            self.assertFalse(c["securityContext"]["allowPrivilegeEscalation"], where)
            self.assertIn("limits", c["resources"], f"{where} {c['name']}")

        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        self.assertEqual(annotations["prometheus.io/scrape"], "true", where)
        self.assertEqual(int(annotations["prometheus.io/port"]), ports["metrics"], where)

        # Every mount has its volume; every file path in the config lies on a mount.
        volumes = {v["name"]: v for v in pod["volumes"]}
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        for name in mounts.values():
            self.assertIn(name, volumes, where)
        for key, path in config.items():
            if isinstance(path, str) and path.startswith("sqlite:"):
                path = path[len("sqlite:"):]
            if isinstance(path, str) and path.startswith("/"):
                self.assertTrue(any(path == m or path.startswith(m.rstrip("/") + "/")
                                    for m in mounts), f"{where}: {key} {path} is on no volume")
        args = container["args"]
        self.assertEqual(args[:2], ["--config", "/etc/shardplan/config.json"], where)
        self.assertEqual(mounts["/etc/shardplan/config.json"], "config", where)
        check_setting_names(self, flag_names(args[2:]), f"{where} args")

        # A readiness probe takes a pod out of the Service from its drain's first moment, and a
        # budget covers the pods against evictions.
        self.assertIn("readinessProbe", container, where)
        pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
        budget = find(docs, "PodDisruptionBudget", "shardplan")
        self.assertTrue(matches(budget["spec"]["selector"], pod_labels), f"{where}: PDB selector")

        # The Services reach named container ports of these pods.
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        for service in (d for d in docs if d.get("kind") == "Service"):
            for key, value in service["spec"]["selector"].items():
                self.assertEqual(labels.get(key), value, service["metadata"]["name"])
            for port in service["spec"]["ports"]:
                self.assertIn(port["targetPort"], ports, service["metadata"]["name"])
        return deployment, config, volumes, args

    def test_base_is_one_replica_on_sqlite(self):
        base = deploy_path("k8s", "base")
        docs = rendered(base) or k8s_docs(base)
        deployment, config, volumes, _ = self.check_deployment(docs, "base")
        # SQLite on a ReadWriteOnce volume, which one server may hold at a time (its instance
        # lock): one replica, replaced by Recreate (RolloutTest: clients wait through the gap).
        self.assertTrue(config["store"].startswith("sqlite:"))
        self.assertEqual(deployment["spec"]["replicas"], 1)
        self.assertEqual(deployment["spec"]["strategy"]["type"], "Recreate")
        self.assertFalse([d for d in docs if d.get("kind") == "HorizontalPodAutoscaler"])
        # The one pod is never evicted behind the operator's back.
        budget = find(docs, "PodDisruptionBudget", "shardplan")["spec"]
        self.assertEqual(budget.get("minAvailable"), 1)
        self.assertNotIn("maxUnavailable", budget)
        store = find(docs, "PersistentVolumeClaim",
                     volumes["store"]["persistentVolumeClaim"]["claimName"])
        self.assertEqual(store["spec"]["accessModes"], ["ReadWriteOnce"])
        # The Secrets it mounts are documented (with placeholders) in secret.example.yaml.
        examples = {d["metadata"]["name"] for d in load_yaml(
            deploy_path("k8s", "base", "secret.example.yaml"))}
        for volume in volumes.values():
            if "secret" in volume:
                self.assertIn(volume["secret"]["secretName"], examples)
        resources = load_yaml(deploy_path("k8s", "base", "kustomization.yaml"))[0]["resources"]
        self.assertNotIn("secret.example.yaml", resources)

    def test_postgresql_overlay_scales(self):
        overlay = deploy_path("k8s", "overlays", "postgresql")
        docs = rendered(overlay)
        if docs is None:  # without kubectl: the patch itself
            patch = load_yaml(os.path.join(overlay, "deployment-patch.yaml"))[0]
            args = patch["spec"]["template"]["spec"]["containers"][0]["args"]
            replicas = patch["spec"]["replicas"]
            check_setting_names(self, flag_names(args), "overlay args")
        else:
            deployment, _, volumes, args = self.check_deployment(docs, "overlays/postgresql")
            replicas = deployment["spec"]["replicas"]
            # Rolls without a gap: a new pod is ready before an old one goes. Replicas spread
            # over nodes, and may be evicted one at a time.
            strategy = deployment["spec"]["strategy"]
            self.assertEqual(strategy["type"], "RollingUpdate")
            self.assertEqual(strategy["rollingUpdate"]["maxUnavailable"], 0)
            self.assertGreaterEqual(strategy["rollingUpdate"]["maxSurge"], 1)
            affinity = deployment["spec"]["template"]["spec"]["affinity"]
            self.assertIn("podAntiAffinity", affinity)
            budget = find(docs, "PodDisruptionBudget", "shardplan")["spec"]
            self.assertEqual(budget.get("maxUnavailable"), 1)
            self.assertNotIn("minAvailable", budget)
            self.assertNotIn("persistentVolumeClaim", volumes["store"])
            self.assertFalse([d for d in docs if d.get("kind") == "PersistentVolumeClaim" and
                              d["metadata"]["name"] == "shardplan-store"])
            models = find(docs, "PersistentVolumeClaim",
                          volumes["models"]["persistentVolumeClaim"]["claimName"])
            self.assertEqual(models["spec"]["accessModes"], ["ReadWriteMany"])
        store = args[args.index("--store") + 1]
        self.assertTrue(store.startswith("postgresql://"), store)
        self.assertNotRegex(store, r"//[^/@]*:[^/@]*@", "a password in the command line")
        hpa = load_yaml(os.path.join(overlay, "hpa.yaml"))[0]
        self.assertEqual(hpa["spec"]["scaleTargetRef"]["name"], "shardplan")
        self.assertGreaterEqual(hpa["spec"]["minReplicas"], 2)
        self.assertEqual(replicas, hpa["spec"]["minReplicas"])

    def test_prometheus_operator_objects(self):
        """deploy/k8s/monitoring: the PrometheusRule is alerts.yml's rules, and the
        ServiceMonitor scrapes the metrics port of the Service that reaches the pods."""
        monitoring = deploy_path("k8s", "monitoring")
        docs = k8s_docs(monitoring)
        rule = find(docs, "PrometheusRule", "shardplan")
        alerts = load_yaml(deploy_path("prometheus", "alerts.yml"))[0]
        self.assertEqual(rule["spec"]["groups"], alerts["groups"],
                         "prometheusrule.yaml is out of date: run scripts/render_prometheus_rule.py")
        out = subprocess.run([sys.executable, os.path.join(SOURCE, "scripts",
                                                           "render_prometheus_rule.py"), "--check"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        monitor = find(docs, "ServiceMonitor", "shardplan")
        self.assertEqual(monitor["metadata"]["labels"], rule["metadata"]["labels"],
                         "one selector label for both, as the operator's Prometheus uses")
        base = k8s_docs(deploy_path("k8s", "base"))
        base_kustomization = load_yaml(deploy_path("k8s", "base", "kustomization.yaml"))[0]
        kustomization = load_yaml(os.path.join(monitoring, "kustomization.yaml"))[0]
        self.assertEqual(kustomization["namespace"], base_kustomization["namespace"])
        # The Service carries the kustomization's labels, which the monitor selects on.
        service_labels = dict(find(base, "Service", "shardplan")["metadata"].get("labels", {}))
        for pairs in base_kustomization.get("labels", []):
            service_labels.update(pairs["pairs"])
        for key, value in monitor["spec"]["selector"]["matchLabels"].items():
            self.assertEqual(service_labels.get(key), value, key)
        service_ports = {p["name"] for p in find(base, "Service", "shardplan")["spec"]["ports"]}
        deployment = find(base, "Deployment", "shardplan")
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        metrics_port = {p["name"]: p["containerPort"] for p in container["ports"]}["metrics"]
        for endpoint in monitor["spec"]["endpoints"]:
            self.assertIn(endpoint["port"], service_ports)
            self.assertEqual(endpoint["path"], deployment["spec"]["template"]["metadata"]
                             ["annotations"].get("prometheus.io/path", "/metrics"))
        self.assertEqual(port_of(configmap_config(base)["metrics_address"]), metrics_port)

    def test_kubernetes_prometheus_config(self):
        """prometheus-kubernetes.yml passes promtool; where promtool was built without
        Kubernetes discovery (Debian's), with the discovery replaced by a static target."""
        config = load_yaml(deploy_path("prometheus", "prometheus-kubernetes.yml"))[0]
        job = config["scrape_configs"][0]
        annotations = {a for r in job["relabel_configs"] for a in r.get("source_labels", [])}
        for name in ("scrape", "port", "path"):  # what deployment.yaml annotates
            self.assertIn(f"__meta_kubernetes_pod_annotation_prometheus_io_{name}", annotations)
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(deploy_path("prometheus", "alerts.yml"), tmp)
            path = os.path.join(tmp, "prometheus.yml")
            with open(path, "w") as f:
                yaml.safe_dump(config, f)
            out = subprocess.run([PROMTOOL, "check", "config", path], capture_output=True,
                                 text=True)
            if "kubernetes_sd_configs not found" in out.stdout + out.stderr:
                job["static_configs"] = [{"targets": ["127.0.0.1:9464"]}]
                del job["kubernetes_sd_configs"]
                with open(path, "w") as f:
                    yaml.safe_dump(config, f)
                out = subprocess.run([PROMTOOL, "check", "config", path], capture_output=True,
                                     text=True)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)


# --- the container image -------------------------------------------------------------------

def dockerfile_instructions():
    """(instruction, arguments) of deploy/docker/Dockerfile, continuation lines joined."""
    with open(deploy_path("docker", "Dockerfile")) as f:
        text = re.sub(r"\\\n", " ", f.read())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            instruction, _, rest = line.partition(" ")
            out.append((instruction.upper(), re.sub(r"\s+#.*$", "", rest).strip()))
    return out


def dockerfile_stages():
    stages, current = {}, None
    for instruction, rest in dockerfile_instructions():
        if instruction == "FROM":
            current = rest.split()[-1]
            stages[current] = []
        stages[current].append((instruction, rest))
    return stages


def dockerignore_excludes(relpath):
    with open(os.path.join(SOURCE, ".dockerignore")) as f:
        patterns = [line.strip().rstrip("/") for line in f
                    if line.strip() and not line.startswith("#")]
    parts = relpath.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(prefix, pattern) or fnmatch.fnmatch(prefix, pattern.lstrip("*/"))
               for prefix in prefixes for pattern in patterns)


def packages_of(libraries):
    """{library: the Debian package that ships it, or None}, trying the merged-/usr spellings
    too. One dpkg -S for all: it is slow to start."""
    candidates = {}
    for library in libraries:
        spellings = []
        for path in (library, os.path.realpath(library)):
            spellings.append(path)
            if path.startswith("/usr/lib/"):
                spellings.append(path[len("/usr"):])
            elif path.startswith("/lib/"):
                spellings.append("/usr" + path)
        candidates[library] = spellings
    paths = sorted({p for spellings in candidates.values() for p in spellings})
    out = subprocess.run(["dpkg", "-S"] + paths, capture_output=True, text=True)
    owner = {}
    for line in out.stdout.splitlines():
        package, _, path = line.partition(": ")
        owner[path.strip()] = package.split(":", 1)[0]
    return {library: next((owner[p] for p in spellings if p in owner), None)
            for library, spellings in candidates.items()}


class DockerfileTest(unittest.TestCase):
    def binaries(self):
        return [server_binary(), os.environ["SHARDPLAN_CLI"]]

    def test_runtime_stage_installs_every_shared_library_package(self):
        runtime = list(dockerfile_stages().values())[-1]
        installed = set()
        for instruction, rest in runtime:
            if instruction == "RUN":
                for command in re.split(r"&&|;", rest):
                    words = command.split()
                    if words[:2] == ["apt-get", "install"]:
                        installed |= {w for w in words[2:] if not w.startswith("-")}
        self.assertTrue(installed, "the runtime stage installs no packages")
        # The libraries the binaries link directly (ELF NEEDED), located by ldd: their own
        # dependencies come with their packages (apt resolves them), so only these must be named.
        libraries = set()
        for binary in self.binaries():
            out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True)
            located = dict(re.findall(r"^\s*(\S+) => (/\S+)", out.stdout, flags=re.M))
            dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True,
                                     check=True).stdout
            for name in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic):
                self.assertIn(name, located, f"ldd does not locate {name} of {binary}")
                libraries.add(located[name])
        needed = {}
        for library, package in packages_of(libraries).items():
            self.assertIsNotNone(package, f"{library} is in no Debian package")
            needed.setdefault(package, set()).add(os.path.basename(library))
        self.assertIn("libgrpc++1.51", needed)  # the parsing above found the real libraries
        # A gcc build with -DSHARDPLAN_SANITIZE links the sanitizer runtimes dynamically; the image
        # is built without sanitizers, so they are no runtime dependency of it.
        needed = {p: libs for p, libs in needed.items()
                  if not re.fullmatch(r"lib(a|ub|l|t)san[0-9]+", p)}
        missing = {p: sorted(libs) for p, libs in needed.items() if p not in installed}
        self.assertFalse(missing, f"add to the runtime stage's apt-get install: {missing}")

    def test_copy_sources_exist(self):
        stages = dockerfile_stages()
        workdirs = {name: next((rest for i, rest in steps if i == "WORKDIR"), "/")
                    for name, steps in stages.items()}
        copies = 0
        for steps in stages.values():
            for instruction, rest in steps:
                if instruction != "COPY":
                    continue
                words = shlex.split(rest)
                options = [w for w in words if w.startswith("--")]
                sources = [w for w in words if not w.startswith("--")][:-1]
                source_stage = next((o.split("=", 1)[1] for o in options
                                     if o.startswith("--from=")), None)
                for source in sources:
                    copies += 1
                    with self.subTest(copy=rest):
                        if source_stage is None:
                            relpath = os.path.normpath(source)
                            self.assertTrue(os.path.exists(os.path.join(SOURCE, relpath)))
                            if relpath != ".":
                                self.assertFalse(dockerignore_excludes(relpath),
                                                 f"{relpath} is in .dockerignore")
                        else:
                            # The build stage builds the repository at WORKDIR into build/, as
                            # this build tree holds it.
                            workdir = workdirs[source_stage].rstrip("/") + "/"
                            self.assertTrue(source.startswith(workdir + "build/"), source)
                            local = os.path.join(BUILD, source[len(workdir + "build/"):])
                            self.assertTrue(os.path.isfile(local), f"{source}: no {local}")
        self.assertGreaterEqual(copies, 5)

    def test_build_inputs_are_not_ignored(self):
        for path in ("CMakeLists.txt", "scripts/build.sh", "scripts/install_deps.sh", "proto",
                     "planner", "costmodels", "server", "client", "models"):
            self.assertFalse(dockerignore_excludes(path), path)
        self.assertTrue(dockerignore_excludes("build/server/shardplan-server"))

    def test_image_runs_the_config_it_ships_as_non_root(self):
        steps = dockerfile_instructions()
        config = load_json(deploy_path("docker", "config.json"))
        by_instruction = {}
        for instruction, rest in steps:
            by_instruction.setdefault(instruction, []).append(rest)
        copied = {shlex.split(rest)[-1] for rest in by_instruction["COPY"]}
        entrypoint = json.loads(by_instruction["ENTRYPOINT"][-1])
        command = json.loads(by_instruction["CMD"][-1])
        self.assertIn(entrypoint[0], copied)
        self.assertEqual(command[0], "--config")
        self.assertIn(command[1], copied)
        self.assertNotIn(by_instruction["USER"][-1], ("root", "0"))
        exposed = {int(p) for p in " ".join(by_instruction["EXPOSE"]).split()}
        for key in ("address", "metrics_address", "health_address"):
            self.assertIn(port_of(config[key]), exposed, key)
        health = by_instruction["HEALTHCHECK"][-1]
        self.assertIn(f"127.0.0.1:{port_of(config['health_address'])}", health)
        self.assertIn(json.loads(health[health.index("["):])[0], copied)
        self.assertTrue(config["models_dir"] in copied)


# --- the configs against the real server ---------------------------------------------------

def self_signed_certificate(cert, key):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)


def localize_config(test, config, tmp, where):
    """`config` with its addresses on free loopback ports and its paths inside `tmp`; the files
    it names (TLS, tokens) created. An unknown setting fails the test."""
    known = set(check_setting_names(test, config, where))
    local = {}
    for key, value in config.items():
        if key not in known:
            continue
        if key.endswith("_address") and value:
            value = "127.0.0.1:0"
        elif isinstance(value, str) and value.startswith("sqlite:/"):
            value = "sqlite:" + tmp + value[len("sqlite:"):]
            os.makedirs(os.path.dirname(value[len("sqlite:"):]), exist_ok=True)
        elif isinstance(value, str) and value.startswith("/"):
            value = tmp + value
            os.makedirs(os.path.dirname(value), exist_ok=True)
        local[key] = value
    if "tls_cert_file" in local:
        self_signed_certificate(local["tls_cert_file"], local["tls_key_file"])
    if "tls_client_ca_file" in local:
        shutil.copy(local["tls_cert_file"], local["tls_client_ca_file"])
    if "auth_tokens_file" in local:
        with open(local["auth_tokens_file"], "w") as f:
            json.dump({"tokens": [{"name": "deploy-check", "role": "admin",
                                   "sha256": hashlib.sha256(b"deploy-check").hexdigest()}]}, f)
    return local


class ConfigTest(unittest.TestCase):
    """Each shipped server config starts the real server (every key known, every value valid),
    which then reports SERVING on its health port and drains cleanly on SIGTERM."""

    def start_with(self, config, where):
        with tempfile.TemporaryDirectory() as tmp:
            local = localize_config(self, config, tmp, where)
            local["health_address"] = "127.0.0.1:0"  # plaintext, whatever TLS says
            local["port_file"] = os.path.join(tmp, "ports.json")
            path = os.path.join(tmp, "config.json")
            with open(path, "w") as f:
                json.dump(local, f)
            log = open(os.path.join(tmp, "server.log"), "w+")
            process = subprocess.Popen([server_binary(), "--config", path], stdout=log,
                                       stderr=subprocess.STDOUT, cwd=tmp,
                                       preexec_fn=_die_with_parent)
            try:
                deadline = time.monotonic() + 30
                while not os.path.exists(local["port_file"]):
                    if process.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        self.fail(f"{where}: the server did not start with {local}:\n{log.read()}")
                    time.sleep(0.05)
                health_port = load_json(local["port_file"])["health_port"]
                with shardplan.PlannerClient(f"127.0.0.1:{health_port}", retries=1) as client:
                    self.assertEqual(client.health(timeout=10), "SERVING")
                process.send_signal(signal.SIGTERM)
                self.assertEqual(process.wait(timeout=60), 0, where)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
                log.close()

    def test_kubernetes_configmap(self):
        self.start_with(configmap_config(k8s_docs(deploy_path("k8s", "base"))), "configmap")

    def test_docker_config(self):
        self.start_with(load_json(deploy_path("docker", "config.json")), "docker/config.json")

    def test_systemd_config(self):
        self.start_with(load_json(deploy_path("systemd", "config.json")), "systemd/config.json")

    def test_a_misspelt_key_is_caught(self):
        with self.assertRaises(AssertionError):
            self.start_with({"adress": "0.0.0.0:50051"}, "misspelt")


# --- the base's rollout, with real servers --------------------------------------------------

class RolloutTest(unittest.TestCase):
    """The base's rollout (Recreate) with real servers: the old server drains and exits 0; a
    job's client that asks meanwhile retries until the new server, on the same store and
    address, answers; the new one returns the plan the old one stored under the job's key."""

    def test_a_client_waits_through_the_gap_between_old_and_new_server(self):
        config = configmap_config(k8s_docs(deploy_path("k8s", "base")))
        self.assertTrue(config["store"].startswith("sqlite:"))
        with tempfile.TemporaryDirectory() as tmp:
            args = ["--store", "sqlite:" + os.path.join(tmp, "plans.db"),
                    "--replica_id", config["replica_id"]]
            with ServerProcess(args) as old:
                with shardplan.PlannerClient(old.target, timeout=30) as client:
                    stored = client.plan(SMALL_TASK, job_key="rollout/job")
                old.process.send_signal(signal.SIGTERM)  # Recreate: the old pod goes first
                self.assertEqual(old.process.wait(timeout=60), 0, old.log())
                address = old.target  # the Service's address outlives the pods
            retried = threading.Event()
            outcome = {}

            def launch():  # a job launched during the gap, with the client's defaults
                with shardplan.PlannerClient(address, timeout=60) as client:
                    try:
                        outcome["answer"] = client.plan_response(SMALL_TASK,
                                                                 job_key="rollout/job")
                    except shardplan.ShardplanError as error:
                        outcome["error"] = error

            class Retries(logging.Handler):  # the client logs each retry it makes
                def emit(self, record):
                    retried.set()

            handler = Retries(logging.INFO)
            logging.getLogger("shardplan").addHandler(handler)
            self.addCleanup(logging.getLogger("shardplan").removeHandler, handler)
            job = threading.Thread(target=launch)
            job.start()
            self.assertTrue(retried.wait(30), "the client never retried")
            with ServerProcess(args + ["--address", address]):
                job.join(60)
        self.assertNotIn("error", outcome)
        self.assertTrue(outcome["answer"].from_store)
        self.assertEqual(outcome["answer"].plan, stored)


# --- metric names against a live server ----------------------------------------------------

def exercise(server):
    """Plan (twice: a miss and a hit), a measured step, a job and a model reload, so that every
    labelled series the dashboard and the alerts use exists."""
    with shardplan.PlannerClient(server.target) as client:
        client.plan(SMALL_TASK)
        plan = client.plan(SMALL_TASK)
        client.report_measurement(SMALL_TASK, plan,
                                  [max(device.total_ms, 0.001) for device in plan.devices])
        client.wait(client.submit(SMALL_TASK, seed=1))
        client.reload_models()


def exposed_names(metrics_port):
    text = http_get(f"http://127.0.0.1:{metrics_port}/metrics")
    return {re.split(r"[{ ]", line, 1)[0] for line in text.splitlines()
            if line and not line.startswith("#")}


class MetricNamesTest(unittest.TestCase):
    def test_promql_names_exist_on_a_live_server(self):
        alert_exprs, recorded = promql_of_alerts()
        used = shardplan_metric_names(alert_exprs + promql_of_dashboard())
        self.assertIn("shardplan_rpc_duration_seconds_bucket", used)  # the extraction works
        self.assertTrue(recorded)
        with tempfile.TemporaryDirectory() as models, ServerProcess(
                ["--metrics_address", "127.0.0.1:0", "--models_dir", models]) as server:
            exercise(server)
            exposed = exposed_names(server.metrics_port)
        for name in sorted(used - exposed - set(EXERCISED_ELSEWHERE)):
            with self.subTest(metric=name):
                self.fail(f"{name} is used in deploy/ but not exposed by shardplan-server")

    def test_auth_rejections_are_exposed(self):
        with tempfile.TemporaryDirectory() as tmp:
            tokens = os.path.join(tmp, "tokens.json")
            with open(tokens, "w") as f:
                json.dump({"tokens": [{"name": "t", "role": "planner",
                                       "sha256": hashlib.sha256(b"secret").hexdigest()}]}, f)
            with ServerProcess(["--metrics_address", "127.0.0.1:0",
                                "--auth_tokens_file", tokens]) as server:
                with shardplan.PlannerClient(server.target, retries=1) as client:
                    with self.assertRaises(shardplan.ShardplanError):
                        client.list_algorithms()  # no token
                self.assertIn("shardplan_auth_rejections_total",
                              exposed_names(server.metrics_port))


# --- a real Prometheus ---------------------------------------------------------------------

class PrometheusTest(unittest.TestCase):
    """shardplan-server scraped every second by a real Prometheus with deploy/'s alert rules."""

    PLANS = 3

    def start_prometheus(self, metrics_port, tmp):
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [deploy_path("prometheus", "alerts.yml")],
            "scrape_configs": [{"job_name": "shardplan",
                                "static_configs": [{"targets": [f"127.0.0.1:{metrics_port}"]}]}],
        }
        path = os.path.join(tmp, "prometheus.yml")
        with open(path, "w") as f:
            yaml.safe_dump(config, f)
        for _ in range(5):  # the free port may be taken between its probe and the bind
            port = free_port()
            log = open(os.path.join(tmp, "prometheus.log"), "w+")
            process = subprocess.Popen(
                [PROMETHEUS, f"--config.file={path}", f"--storage.tsdb.path={tmp}/data",
                 f"--web.listen-address=127.0.0.1:{port}", "--web.enable-lifecycle"],
                stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
            self.addCleanup(self.stop, process, log)
            deadline = time.monotonic() + 60
            while process.poll() is None and time.monotonic() < deadline:
                try:
                    http_get(f"http://127.0.0.1:{port}/-/ready", timeout=2)
                    return port
                except OSError:
                    time.sleep(0.2)
        log.seek(0)
        self.fail(f"prometheus did not start:\n{log.read()}")

    @staticmethod
    def stop(process, log):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()

    def api(self, port, path, **params):
        url = f"http://127.0.0.1:{port}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        answer = json.loads(http_get(url))
        self.assertEqual(answer["status"], "success", answer)
        return answer["data"]

    def await_api(self, port, path, accept, what, **params):
        """Polls the API until accept(data) is true (Prometheus scrapes and evaluates every
        second; the generous timeout only matters when something is broken)."""
        deadline = time.monotonic() + 90
        data = None
        while time.monotonic() < deadline:
            data = self.api(port, path, **params)
            if accept(data):
                return data
            time.sleep(0.5)
        self.fail(f"{what}: last answer {json.dumps(data)[:2000]}")

    def test_prometheus_scrapes_the_server_and_loads_the_rules(self):
        tmp = tempfile.mkdtemp(prefix="shardplan-prometheus-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        server = ServerProcess(["--metrics_address", "127.0.0.1:0", "--models_dir", tmp])
        server.start()
        self.addCleanup(server.stop)  # cleanups run last-in first-out: Prometheus stops first
        port = self.start_prometheus(server.metrics_port, tmp)

        with shardplan.PlannerClient(server.target) as client:
            for seed in range(self.PLANS):
                client.plan(SMALL_TASK, seed=seed)

        def value(result):
            return [float(r["value"][1]) for r in result["result"]]

        self.await_api(port, "query", lambda d: value(d) == [float(self.PLANS)],
                       f"Prometheus never reported {self.PLANS} OK Plan calls",
                       query='shardplan_rpc_requests_total{job="shardplan",method="Plan",'
                             'code="OK"}')
        self.await_api(port, "query", lambda d: value(d) == [1.0], "target not up",
                       query='up{job="shardplan"}')

        expected = set()
        for group in load_yaml(deploy_path("prometheus", "alerts.yml"))[0]["groups"]:
            expected |= {rule.get("alert") or rule["record"] for rule in group["rules"]}

        def rules(data):
            return {rule["name"]: rule for group in data["groups"] for rule in group["rules"]}

        # Every rule loaded and evaluated without error against the real series.
        loaded = self.await_api(
            port, "rules", lambda d: set(rules(d)) == expected and all(
                r["health"] == "ok" for r in rules(d).values()),
            "the alert rules did not all load and evaluate")
        self.assertIn("ShardplanDown", rules(loaded))
        # Nothing fires on a healthy server.
        firing = [r["name"] for r in rules(loaded).values() if r.get("state") == "firing"]
        self.assertEqual(firing, [])


# --- systemd -------------------------------------------------------------------------------

@unittest.skipIf(shutil.which("systemd-analyze") is None, "systemd-analyze is not installed")
class SystemdTest(unittest.TestCase):
    UNIT = deploy_path("systemd", "shardplan.service")

    def local_unit(self, tmp):
        """The unit with ExecStart on the built binary (verify wants an existing executable)."""
        with open(self.UNIT) as f:
            text = f.read().replace("/usr/local/bin/shardplan-server", server_binary())
        path = os.path.join(tmp, "shardplan.service")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_verify_reports_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(["systemd-analyze", "verify", self.local_unit(tmp)],
                                 capture_output=True, text=True)
        # verify exits 0 on unknown keys and bad values; it only warns, so warnings fail here.
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("shardplan.service", out.stdout + out.stderr)

    def test_hardened(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(["systemd-analyze", "security", "--offline=true",
                                  "--threshold=25", self.local_unit(tmp)],
                                 capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout[-2000:] + out.stderr)

    def test_stop_timeout_covers_the_drain(self):
        with open(self.UNIT) as f:
            settings = dict(re.findall(r"^(\w+)=(.*)$", f.read(), re.M))
        config = load_json(deploy_path("systemd", "config.json"))
        self.assertGreaterEqual(int(settings["TimeoutStopSec"]),
                                config["drain_timeout_s"] + 5 + 2)
        self.assertEqual(settings["KillSignal"], "SIGTERM")
        self.assertEqual(settings["Restart"], "on-failure")
        self.assertNotIn(settings["User"], ("root", "0"))
        check_setting_names(self, flag_names(shlex.split(settings["ExecStart"])[1:]), "ExecStart")
        store = config["store"]
        self.assertTrue(store.startswith("sqlite:/var/lib/" + settings["StateDirectory"] + "/"))


if __name__ == "__main__":
    unittest.main()
