"""Making cases: a new project, importing cases made elsewhere, authoring, specifications and
images from models, and the funnel from primer to reviewed case.
"""
