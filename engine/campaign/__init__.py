"""Campaigns: what outlives one match (docs/bot.md "Running a campaign", docs/storage.md).

- :mod:`engine.campaign.documents`: the sheet document (JSON or YAML) a player exports and
  imports and a GM uploads as the group's library, parsed and checked entry by entry;
- :mod:`engine.campaign.roster`: a player's saved characters;
- :mod:`engine.campaign.library`: a group's presets (characters, NPC templates);
- :mod:`engine.campaign.ladder`: results of finished matches and the ratings made from them;
- :mod:`engine.campaign.chronicle`: a fight split into numbered forum posts.

Pure: no I/O; storage is :class:`engine.ports.CampaignRepository`.
"""
