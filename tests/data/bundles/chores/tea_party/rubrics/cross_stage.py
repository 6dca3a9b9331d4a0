def x_hub_untouched(env):
    return (
        "notification_hub_mock" in env
        and env.notification_hub.call_tool("list_notifications", user_id="mei") is not None
    )


CHECKS = [("x_hub_untouched", x_hub_untouched, 1.0)]
