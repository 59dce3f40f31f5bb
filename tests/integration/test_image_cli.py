"""`kubus image` through click's runner against a real docker-registry: start and stop it, build, import,
list — and a registry that does not answer is a sentence, not a traceback."""
from __future__ import annotations

import io
import json
import shutil
import tarfile

import pytest
from click.testing import CliRunner

from cli.main import main
from runtime.images import oci, recipes, registry
from testkit.hosts import free_port

pytestmark = pytest.mark.skipif(not shutil.which("docker-registry"), reason="docker-registry is not installed")


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    """A registry started by `kubus image registry`, in the background, stopped by `--stop`."""
    env = {"KUBUS_REGISTRY_DIR": str(tmp_path_factory.mktemp("registry")),
           "KUBUS_REGISTRY_URL": f"http://127.0.0.1:{free_port()}"}
    started = CliRunner().invoke(main, ["image", "registry"], env=env)
    assert started.exit_code == 0 and started.output.startswith("registry started at"), started.output
    again = CliRunner().invoke(main, ["image", "registry"], env=env)
    assert again.output == f"a registry answers at {env['KUBUS_REGISTRY_URL']}\n"
    yield env["KUBUS_REGISTRY_URL"]
    stopped = CliRunner().invoke(main, ["image", "registry", "--stop"], env=env)
    assert stopped.output == f"stopped the registry at {env['KUBUS_REGISTRY_URL']}\n"
    assert not registry.answering(env["KUBUS_REGISTRY_URL"])


@pytest.mark.parametrize("args", [
    pytest.param(["image", "list"], id="list"),
    pytest.param(["image", "build"], id="build"),
    pytest.param(["image", "import", __file__], id="import"),
])
def test_a_registry_that_does_not_answer_is_a_sentence(args):
    down = f"http://127.0.0.1:{free_port()}"
    result = CliRunner().invoke(main, [*args, "--registry", down])
    assert result.exit_code == 1
    assert result.output == (f"Error: the image registry at {down} does not answer: "
                             "start it with `make images` or `kubus image registry`\n")


def test_build_pushes_every_recipe_and_list_shows_them(url):
    built = CliRunner().invoke(main, ["image", "build", "--registry", url])
    assert built.exit_code == 0, built.output
    wanted = {ref for recipe in recipes.recipes() for ref in recipe.references}
    assert built.output.count("pushed ") == len(recipes.recipes()) >= 3  # python-kubernetes, kubectl, nginx where they can be
    assert built.output.endswith(f"{len(wanted)} image tags in {url}\n")
    rows = [line.split() for line in CliRunner().invoke(main, ["image", "list", "--registry", url]).output.splitlines()]
    assert rows[0] == ["IMAGE", "TAG", "DIGEST", "SIZE"]
    listed = {f"{row[0]}:{row[1]}": row[2] for row in rows[1:]}
    assert wanted <= set(listed)
    assert listed["kubus/pause:catatonit-" + recipes.package_version("catatonit")] == recipes.pause().manifest.digest
    rebuilt = CliRunner().invoke(main, ["image", "build", "--registry", url])
    assert rebuilt.output.count("0 blobs uploaded") == len(recipes.recipes())


def test_import_pushes_an_archive_under_its_name(url, tmp_path):
    layout = tmp_path / "layout.tar"
    image = oci.image([oci.layer([oci.File("hello", b"hello\n")])], oci.Config(cmd=("/hello",)))
    _write_layout(layout, image)
    result = CliRunner().invoke(main, ["image", "import", str(layout), "--name", "hello:1", "--registry", url])
    assert result.exit_code == 0 and result.output.startswith(f"imported library/hello:1 {image.manifest.digest}")
    bad = CliRunner().invoke(main, ["image", "import", str(layout), "--name", "Bad Name", "--registry", url])
    assert bad.exit_code == 1 and "couldn't parse image name 'Bad Name'" in bad.output and "Traceback" not in bad.output


def _write_layout(path, image: oci.Image) -> None:
    index = {"schemaVersion": 2, "manifests": [image.manifest.descriptor()]}
    files = {"oci-layout": b'{"imageLayoutVersion":"1.0.0"}', "index.json": json.dumps(index).encode(),
             **{f"blobs/sha256/{b.digest[7:]}": b.data for b in (image.manifest, *image.blobs())}}
    with tarfile.open(path, "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
