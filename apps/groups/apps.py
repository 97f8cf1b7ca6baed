from django.apps import AppConfig


class GroupsConfig(AppConfig):
    name = "apps.groups"
    label = "groups"
    verbose_name = "Groups"

    def ready(self):
        # spec §3 Upload row "group image endpoint": the uploads app finalizes, this app says what into.
        from apps.groups import services
        from apps.uploads.models import Upload
        from apps.uploads.flow.services import upload_finalizer_register

        upload_finalizer_register(Upload.Kind.GROUP_IMAGE, services.group_image_finalize)

        # A user's `groups` in the API's user object (a wire version's field).
        from apps.accounts.profiles import profile_fact_register
        from apps.groups.serializers import member_groups

        profile_fact_register("groups", member_groups)
