"""The Littlest JupyterHub's settings for the course: copy this file to
/opt/tljh/config/jupyterhub_config.d/ and run ``sudo tljh-config reload``
(docs/instructor/hub.md). Memory limits and the idle culler are set with tljh-config."""

# ``c`` is the JupyterHub configuration object TLJH hands to every file of jupyterhub_config.d.
c = get_config()  # noqa: F821

c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    # the shared, read-only data root: MNIST/raw, checkpoints/ and results/
    "CAPSEDU_DATA": "/srv/capsedu-data",
    # torch uses one thread per core by default; with a class on one machine they fight for the
    # cores. Two threads per kernel keeps a kernel's work in a share of the machine.
    "OMP_NUM_THREADS": "2",
    "MKL_NUM_THREADS": "2",
}
