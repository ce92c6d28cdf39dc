#!/usr/bin/env bash
# Build the learners' image for a JupyterHub (deploy/z2jh/config.yaml) with repo2docker, from the
# course's repository (pyproject.toml's [project.urls] Repository) at a commit:
#
#   pip install jupyter-repo2docker && bash deploy/build-image.sh [COMMIT]   # default: main
#
# repo2docker builds binder/environment.yml, the learner environment (as Binder does). Two things
# differ from Binder: the repository goes to /srv/capsedu, not the home folder, because a hub
# mounts each learner's persistent home over /home/jovyan (the editable install and data/ stay
# visible); and the appendix adds nbgitpuller (the course's link) and the single-user server of
# the hub's JupyterHub major version (JUPYTERHUB_VERSION, 5 for the Zero to JupyterHub chart 4).
set -euo pipefail
cd "$(dirname "$0")/.."
REF="${1:-main}"
JUPYTERHUB_VERSION="${JUPYTERHUB_VERSION:-5}"
REPOSITORY="$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["urls"]["Repository"])')"
IMAGE="ghcr.io/${REPOSITORY#https://github.com/}"
repo2docker --no-run --user-name jovyan --ref "$REF" --target-repo-dir /srv/capsedu \
  --appendix "RUN python -m pip install --no-cache-dir nbgitpuller 'jupyterhub==${JUPYTERHUB_VERSION}.*'" \
  --image-name "${IMAGE}:${REF}" "$REPOSITORY"
echo "built ${IMAGE}:${REF}; push it (docker push ${IMAGE}:${REF}) and set singleuser.image.tag"
