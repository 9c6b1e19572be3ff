-- Who a channel's messages reach, as a hash of the config fields that name it (its URL, address or
-- chat): channels of a workspace with the same destination get one delivery per event between
-- them, so 25 channels pointed at one URL cannot turn one failure into 25 requests to it. Channels
-- saved before this have none (each is its own destination) until they are saved again.

-- AlterTable
ALTER TABLE "notification_channels" ADD COLUMN "destination_key" TEXT;
