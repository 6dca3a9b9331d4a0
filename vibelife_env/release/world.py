"""A public bundle's world: the services that run the release's own semantics.

Most of our services answer as the release's servers do, or differ only in how leniently
they read arguments (each service's docstring says where). Where the release's shipped
server code makes the *world* behave otherwise, a public bundle runs that code's way and
our own tasks keep ours, as their tool descriptions state it. Such a service has a
*release profile*: a subclass with the release's behaviour and tool descriptions, whose
databases carry the profile in their image (so snapshots, forks and restores keep it).
Today that is one service:

- ``flight_booking``
  (:class:`~vibelife_env.services.flight_booking.release.ReleaseFlightBookingService`):
  holds never lapse, and ``get_flight_status`` answers for any date of a known flight.

The profile is chosen here, per task, for both things an episode takes from a task: the
tool classes the agent is shown (:func:`provider_class`, through
:func:`vibelife_env.episode.providers`) and the database images its world is built from
(:func:`world_images`, through :meth:`vibelife_env.episode.Episode.start`). A task is a
public bundle when it ships the release's runner (``task.release``; see
:func:`vibelife_env.release.profile.is_release_bundle`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vibelife_env.services.registry import canonical_name, service_class

if TYPE_CHECKING:
    from vibelife_env.services.base import Service
    from vibelife_env.services.flight_booking.service import FlightBookingService
    from vibelife_env.task.loader import Task


def release_classes() -> dict[str, type[FlightBookingService]]:
    """The services whose release profile differs from ours, and the class implementing it."""
    from vibelife_env.services.flight_booking.release import ReleaseFlightBookingService

    return {"flight_booking": ReleaseFlightBookingService}


def provider_class(task: Task, name: str) -> type[Service]:
    """The class of service ``name`` in ``task``'s world: its release profile in a public bundle."""
    cls = service_class(name)
    if task.release is None:
        return cls
    return release_classes().get(canonical_name(name), cls)


def world_images(task: Task) -> dict[str, bytes]:
    """The database images ``task``'s world starts from: ``task.images``, with the services
    of a public bundle that have a release profile under it (the same dict for own tasks)."""
    images = task.images
    if task.release is None:
        return images
    profiled = release_classes()
    return {name: profiled[name].stamp(image) if name in profiled else image for name, image in images.items()}
